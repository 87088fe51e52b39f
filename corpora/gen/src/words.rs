//! Vocabulary for identifiers, file names and prose.
//!
//! The lists are chosen so that names of different roles can never collide inside one scope:
//! functions are `verb_noun` (they start with a verb), classes are `Noun` + class suffix,
//! module-level aliases end in `_mod`/`Mod`, locals are single words or `noun_suffix` instance
//! names, packages come from `DOMAINS`/`TOPS`, module files from `noun_kind`/`kind`. None of them
//! is a Python or JavaScript keyword, builtin or global.

use crate::rng::Rng;

pub const VERBS: &[&str] = &[
    "load",
    "save",
    "fetch",
    "build",
    "parse",
    "render",
    "validate",
    "compute",
    "resolve",
    "merge",
    "apply",
    "sync",
    "update",
    "create",
    "remove",
    "refresh",
    "publish",
    "ingest",
    "collect",
    "normalize",
    "prepare",
    "dispatch",
    "process",
    "track",
    "encode",
    "decode",
    "compress",
    "expand",
    "archive",
    "restore",
    "verify",
    "notify",
    "rank",
    "score",
    "convert",
    "transform",
    "assemble",
    "emit",
    "flush",
    "configure",
    "evaluate",
    "estimate",
    "summarize",
    "aggregate",
    "reconcile",
    "enrich",
    "persist",
    "hydrate",
    "invalidate",
    "prune",
    "allocate",
    "attach",
    "detach",
    "approve",
    "reject",
    "cancel",
    "submit",
    "lookup",
    "upsert",
    "batch",
];

pub const NOUNS: &[&str] = &[
    "user",
    "order",
    "invoice",
    "account",
    "session",
    "token",
    "record",
    "payment",
    "product",
    "customer",
    "report",
    "metric",
    "message",
    "queue",
    "job",
    "task",
    "profile",
    "address",
    "shipment",
    "ledger",
    "policy",
    "rule",
    "quota",
    "tenant",
    "project",
    "document",
    "webhook",
    "catalog",
    "price",
    "discount",
    "coupon",
    "review",
    "rating",
    "stock",
    "warehouse",
    "vendor",
    "contract",
    "segment",
    "audit",
    "permission",
    "role",
    "team",
    "notice",
    "template",
    "asset",
    "upload",
    "receipt",
    "refund",
    "credit",
    "balance",
    "cart",
    "item",
    "plan",
    "subscription",
    "license",
    "device",
    "region",
    "currency",
    "journal",
    "ticket",
    "comment",
    "attachment",
];

pub const CLASS_SUFFIXES: &[&str] = &[
    "Service",
    "Manager",
    "Repository",
    "Controller",
    "Store",
    "Client",
    "Builder",
    "Factory",
    "Provider",
    "Validator",
    "Processor",
    "Adapter",
    "Registry",
    "Resolver",
    "Scheduler",
    "Tracker",
    "Loader",
    "Formatter",
    "Gateway",
    "Mapper",
    "Serializer",
    "Cache",
    "Engine",
    "Pipeline",
    "Worker",
    "Monitor",
    "Dispatcher",
    "Collector",
    "Importer",
    "Exporter",
];

/// Second part of module file names (`order_service.py`, `order-service.ts`), or a whole name.
pub const MODULE_KINDS: &[&str] = &[
    "service",
    "models",
    "utils",
    "helpers",
    "store",
    "views",
    "tasks",
    "handlers",
    "schemas",
    "client",
    "settings",
    "signals",
    "rules",
    "mappers",
    "loaders",
    "validators",
    "formatters",
    "metrics",
    "queries",
    "commands",
    "policies",
    "adapters",
    "serializers",
    "workers",
    "backends",
    "filters",
    "routes",
    "jobs",
    "hooks",
    "factories",
];

/// Package (directory) names below the top level.
pub const DOMAINS: &[&str] = &[
    "billing",
    "auth",
    "inventory",
    "shipping",
    "merchandising",
    "accounts",
    "analytics",
    "reporting",
    "notifications",
    "payments",
    "search",
    "storage",
    "messaging",
    "scheduling",
    "pricing",
    "orders",
    "admin",
    "integrations",
    "compliance",
    "onboarding",
    "support",
    "marketing",
    "checkout",
    "fulfillment",
    "identity",
    "channels",
    "infra",
    "common",
    "shared",
    "core",
    "web",
    "ledgers",
    "procurement",
    "tenancy",
    "licensing",
    "sales",
    "geo",
    "media",
    "exports",
    "partners",
    "audit_log",
    "security",
    "crm",
    "loyalty",
    "returns",
    "warehousing",
    "treasury",
];

/// Top-level package names (numbered past the end of the list).
pub const TOPS: &[&str] = &[
    "atlas", "borealis", "cobalt", "dynamo", "ember", "falcon", "granite", "harbor", "ionic", "jasper", "kepler", "lumen", "meridian",
    "nebula", "onyx", "polaris", "quartz", "raven", "sierra", "tundra", "umbra", "vertex", "willow", "xenon", "yarrow", "zephyr", "aurora",
    "beacon", "cascade", "drift",
];

pub const ADJECTIVES: &[&str] = &[
    "pending",
    "stale",
    "active",
    "archived",
    "default",
    "current",
    "remote",
    "local",
    "cached",
    "primary",
    "secondary",
    "expired",
    "validated",
    "partial",
    "complete",
    "upstream",
    "incoming",
];

/// `user_store` -> `UserStore`.
pub fn pascal(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    for part in snake.split('_').filter(|p| !p.is_empty()) {
        let mut cs = part.chars();
        if let Some(c) = cs.next() {
            out.extend(c.to_uppercase());
            out.push_str(cs.as_str());
        }
    }
    out
}

/// `load_user` -> `loadUser`.
pub fn camel(snake: &str) -> String {
    let p = pascal(snake);
    let mut cs = p.chars();
    match cs.next() {
        Some(c) => c.to_lowercase().collect::<String>() + cs.as_str(),
        None => String::new(),
    }
}

/// `UserStore` -> `user_store`.
pub fn snake_of_pascal(p: &str) -> String {
    let mut out = String::with_capacity(p.len() + 4);
    for (i, c) in p.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

pub fn kebab(snake: &str) -> String {
    snake.replace('_', "-")
}

fn capitalize(s: &str) -> String {
    let mut cs = s.chars();
    match cs.next() {
        Some(c) => c.to_uppercase().collect::<String>() + cs.as_str(),
        None => String::new(),
    }
}

/// A short English sentence (ends with a period) for docstrings and comments.
pub fn sentence(rng: &mut Rng) -> String {
    let v = *rng.pick(VERBS);
    let n = *rng.pick(NOUNS);
    let n2 = *rng.pick(NOUNS);
    let a = *rng.pick(ADJECTIVES);
    match rng.below(10) {
        0 => format!("{} the {a} {n} before it reaches the {n2} layer.", capitalize(v)),
        1 => format!("{} each {n} and keep the {a} ones for later.", capitalize(v)),
        2 => format!("Returns the {n} total after the {n2} adjustments are applied."),
        3 => format!("The {n} value is {a} here, so {v} it again."),
        4 => format!("{} the {n} {n2} in one pass to avoid a second round trip.", capitalize(v)),
        5 => format!("Keep this in sync with the {n2} {n} rules."),
        6 => format!("Only {a} {n} entries are considered."),
        7 => format!("{} the {n} and report how many {n2} items changed.", capitalize(v)),
        8 => format!("Fall back to the {a} {n} when the {n2} is missing."),
        _ => format!("This mirrors how the {n2} service treats {a} {n} entries."),
    }
}

/// A lowercase phrase without a final period.
pub fn phrase(rng: &mut Rng) -> String {
    let n = *rng.pick(NOUNS);
    let a = *rng.pick(ADJECTIVES);
    match rng.below(4) {
        0 => format!("the {a} {n} value"),
        1 => format!("how many {n} items to consider"),
        2 => format!("the {n} identifier"),
        _ => format!("an optional {a} {n} offset"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn vocabularies_do_not_overlap() {
        let mut seen = HashSet::new();
        for w in VERBS.iter().chain(NOUNS).chain(MODULE_KINDS).chain(DOMAINS).chain(TOPS) {
            assert!(seen.insert(*w), "word {w} appears in two vocabularies");
        }
        for d in DOMAINS {
            for k in MODULE_KINDS {
                assert!(!d.ends_with(&format!("_{k}")), "{d}");
            }
        }
    }

    #[test]
    fn case_helpers() {
        assert_eq!(pascal("user_store"), "UserStore");
        assert_eq!(camel("load_user"), "loadUser");
        assert_eq!(snake_of_pascal("UserStore"), "user_store");
        assert_eq!(kebab("order_service"), "order-service");
    }
}
