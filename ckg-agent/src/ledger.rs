//! The work ledger: a plan and its progress, stored next to the index (`.ckg/plan.db`,
//! SQLite) so that an agent can stop and resume. Units have states (`pending`,
//! `in_progress`, `needs_decision`, `verifying`, `done`, `failed`); every verification run
//! and every decision on an open question is recorded. `done` is never taken on trust:
//! [`Ledger::status`] re-evaluates every unit on the current index (legacy references gone,
//! the pack's constraints pass in the unit's files, the last command checks passed).
//!
//! Each change is one transaction: a killed run loses nothing already recorded.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ckg_query::Index;
use rusqlite::{Connection, OptionalExtension, params};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::pack::Pack;
use crate::plan::{Plan, Unit, migration_of, uses_package};
use crate::rules::{CheckOptions, RuleSet};
use crate::{Error, Result};

/// A unit as [`Ledger::units`] reads it: the unit, its state, the hash of its files when
/// planned, and when last verified.
pub type StoredUnit = (Unit, String, String, Option<String>);

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE IF NOT EXISTS units(
    unit_id TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    state TEXT NOT NULL,
    notes TEXT NOT NULL,
    -- From the notes, what `status` needs: files (JSON), whether they use the framework,
    -- open question ids (JSON).
    paths TEXT NOT NULL,
    uses_framework INTEGER NOT NULL,
    questions TEXT NOT NULL,
    -- The content hash of the unit's files when the plan was made, and when it was last done.
    planned_hash TEXT NOT NULL,
    done_hash TEXT,
    -- ... and when its checks were last run.
    verified_hash TEXT,
    -- The last evaluation by `status`: of which file contents, and what it found.
    eval_hash TEXT,
    eval_legacy INTEGER,
    eval_violations INTEGER,
    eval_reaches INTEGER
) STRICT;
CREATE TABLE IF NOT EXISTS runs(
    id INTEGER PRIMARY KEY,
    unit_id TEXT NOT NULL,
    check_name TEXT NOT NULL,
    kind TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    -- pass, fail, timeout, error
    result TEXT NOT NULL,
    -- build, test, constraint, legacy_reference, timeout (for failures)
    failure TEXT,
    detail TEXT NOT NULL,
    output TEXT
) STRICT;
CREATE TABLE IF NOT EXISTS decisions(
    unit_id TEXT NOT NULL,
    question_id TEXT NOT NULL,
    answer TEXT NOT NULL,
    decided_at INTEGER NOT NULL,
    PRIMARY KEY(unit_id, question_id)
) STRICT;
";

/// The version of the ledger's tables (a ledger of another version is made again by `ckg plan`).
const LEDGER_VERSION: &str = "3";

/// The state of one unit, re-evaluated on the current index.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct UnitStatus {
    pub unit_id: String,
    pub position: usize,
    pub state: String,
    pub paths: Vec<String>,
    /// Edges from the unit's files to the source framework that remain.
    pub legacy_references: usize,
    /// Violations of the pack's rules caused by the unit's files (in them, or registrations
    /// in them of roles defined elsewhere).
    pub violations: usize,
    /// The last result of each command check (`pass`, `fail`, `timeout`), if run.
    pub commands: BTreeMap<String, String>,
    /// Open questions without a recorded decision.
    pub undecided: Vec<String>,
    /// True when the unit's files changed since the plan was made.
    pub edited: bool,
    /// Why the unit has its state.
    pub reason: String,
}

/// `plan status`: every unit's state.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct StatusAnswer {
    pub generation: i64,
    pub pack: String,
    /// The generation the plan was made at.
    pub baseline_generation: i64,
    pub units: Vec<UnitStatus>,
    /// Units by state.
    pub counts: BTreeMap<String, usize>,
}

/// One verification run of a check.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct Run {
    pub unit_id: String,
    pub check: String,
    pub kind: String,
    pub result: String,
    /// For a failure: `build`, `test`, `constraint`, `legacy_reference` or `timeout`.
    pub failure: Option<String>,
    pub detail: String,
    pub duration_ms: u64,
    /// Where a command's output was written.
    pub output: Option<String>,
}

/// `plan verify`: the runs of one unit's checks and its state after them.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
pub struct VerifyAnswer {
    pub unit_id: String,
    pub runs: Vec<Run>,
    pub state: String,
}

/// A stored plan.
pub struct Ledger {
    conn: Connection,
    path: PathBuf,
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

fn sql(path: &Path) -> impl Fn(rusqlite::Error) -> Error + '_ {
    move |e| Error::Usage(format!("{}: {e}", path.display()))
}

/// The content hash of some files of the repository (missing files count as empty).
fn files_hash(root: &Path, paths: &[String]) -> String {
    let mut all = Vec::new();
    for p in paths {
        all.extend_from_slice(p.as_bytes());
        all.push(0);
        all.extend(std::fs::read(root.join(p)).unwrap_or_default());
        all.push(0);
    }
    format!("{:016x}", fnv1a(&all))
}

/// FNV-1a, 64 bits: enough to see that files changed.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

impl Ledger {
    /// Where the ledger of an index lives: next to it.
    pub fn path_for(index_db: &Path) -> PathBuf {
        index_db.with_file_name("plan.db")
    }

    /// Opens the ledger of an index; it must have been made for this index.
    pub fn open(index: &Index, index_db: &Path) -> Result<Ledger> {
        let path = Ledger::path_for(index_db);
        if !path.exists() {
            return Err(Error::Usage(format!("no plan yet ({} does not exist): run `ckg plan --pack NAME` first", path.display())));
        }
        let conn = Connection::open(&path).map_err(sql(&path))?;
        let ledger = Ledger { conn, path };
        let kind: Option<String> = ledger.meta("ckg_ledger");
        if kind.as_deref() != Some(LEDGER_VERSION) {
            return Err(Error::Usage(format!("{} is not a ckg plan ledger", ledger.path.display())));
        }
        let (built, root) = (ledger.meta("index_build_id"), ledger.meta("index_root"));
        if built != index.meta("build_id") || root != index.root() {
            return Err(Error::Usage(format!(
                "{} was made for another index (root {}); run `ckg plan --pack NAME` again",
                ledger.path.display(),
                root.unwrap_or_default()
            )));
        }
        Ok(ledger)
    }

    fn meta(&self, key: &str) -> Option<String> {
        self.conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0)).optional().ok().flatten()
    }

    /// Stores a plan, keeping the runs, decisions and done marks of units that are still in it.
    pub fn store(index: &Index, index_db: &Path, plan: &Plan) -> Result<Ledger> {
        let path = Ledger::path_for(index_db);
        let mut conn = Connection::open(&path).map_err(sql(&path))?;
        // A ledger of another version (or not a ledger) is started over.
        let version: Option<String> = conn.query_row("SELECT value FROM meta WHERE key = 'ckg_ledger'", [], |r| r.get(0)).ok();
        if version.as_deref() != Some(LEDGER_VERSION) {
            conn.execute_batch(
                "DROP TABLE IF EXISTS units; DROP TABLE IF EXISTS runs; DROP TABLE IF EXISTS decisions; DROP TABLE IF EXISTS meta;",
            )
            .map_err(sql(&path))?;
        }
        conn.execute_batch(SCHEMA).map_err(sql(&path))?;
        let root = PathBuf::from(index.root().unwrap_or_default());
        let tx = conn.transaction().map_err(sql(&path))?;
        let same_index = tx
            .query_row("SELECT value FROM meta WHERE key = 'index_build_id'", [], |r| r.get::<_, String>(0))
            .optional()
            .map_err(sql(&path))?
            == index.meta("build_id");
        let same_pack = tx
            .query_row("SELECT value FROM meta WHERE key = 'pack'", [], |r| r.get::<_, String>(0))
            .optional()
            .map_err(sql(&path))?
            .as_deref()
            == Some(plan.pack.as_str());
        if !(same_index && same_pack) {
            // Another index or another migration: start over.
            tx.execute_batch("DELETE FROM units; DELETE FROM runs; DELETE FROM decisions; DELETE FROM meta;").map_err(sql(&path))?;
        }
        let ids: Vec<&str> = plan.units.iter().map(|u| u.unit_id.as_str()).collect();
        let old: Vec<String> = {
            let mut s = tx.prepare("SELECT unit_id FROM units").map_err(sql(&path))?;
            let rows = s.query_map([], |r| r.get(0)).map_err(sql(&path))?;
            rows.collect::<rusqlite::Result<_>>().map_err(sql(&path))?
        };
        for gone in old.iter().filter(|o| !ids.contains(&o.as_str())) {
            tx.execute("DELETE FROM units WHERE unit_id = ?1", [gone]).map_err(sql(&path))?;
        }
        for u in &plan.units {
            let notes = serde_json::to_string(u).expect("serializable");
            let hash = files_hash(&root, &u.source.paths);
            tx.execute(
                "INSERT INTO units(unit_id, position, state, notes, paths, uses_framework, questions, planned_hash)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT(unit_id) DO UPDATE SET position = excluded.position, notes = excluded.notes, paths = excluded.paths,
                    uses_framework = excluded.uses_framework, questions = excluded.questions, eval_hash = NULL",
                params![
                    u.unit_id,
                    u.position as i64,
                    u.state,
                    notes,
                    serde_json::to_string(&u.source.paths).expect("serializable"),
                    u.uses_framework,
                    serde_json::to_string(&u.open_questions.iter().map(|q| &q.id).collect::<Vec<_>>()).expect("serializable"),
                    hash
                ],
            )
            .map_err(sql(&path))?;
        }
        for (k, v) in [
            ("ckg_ledger", LEDGER_VERSION.to_string()),
            ("pack", plan.pack.clone()),
            ("index_build_id", index.meta("build_id").unwrap_or_default()),
            ("index_root", index.root().unwrap_or_default()),
            ("baseline_generation", plan.generation.to_string()),
        ] {
            tx.execute("INSERT INTO meta(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value", params![k, v])
                .map_err(sql(&path))?;
        }
        if !same_pack || !same_index {
            tx.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('created_at', ?1)", [now().to_string()]).map_err(sql(&path))?;
        }
        tx.commit().map_err(sql(&path))?;
        Ok(Ledger { conn, path })
    }

    /// The pack the plan was made with.
    pub fn pack(&self) -> String {
        self.meta("pack").unwrap_or_default()
    }

    /// What `status` reads of every unit, in plan order.
    fn heads(&self) -> Result<Vec<Head>> {
        let mut s = self
            .conn
            .prepare(
                "SELECT unit_id, position, paths, uses_framework, questions, planned_hash, verified_hash,
                        eval_hash, eval_legacy, eval_violations, eval_reaches FROM units ORDER BY position",
            )
            .map_err(sql(&self.path))?;
        let rows = s
            .query_map([], |r| {
                let json =
                    |i: usize| -> rusqlite::Result<Vec<String>> { Ok(serde_json::from_str(&r.get::<_, String>(i)?).unwrap_or_default()) };
                Ok(Head {
                    unit_id: r.get(0)?,
                    position: r.get::<_, i64>(1)? as usize,
                    paths: json(2)?,
                    uses_framework: r.get(3)?,
                    questions: json(4)?,
                    planned_hash: r.get(5)?,
                    verified_hash: r.get(6)?,
                    eval_hash: r.get(7)?,
                    eval_legacy: r.get(8)?,
                    eval_violations: r.get(9)?,
                    eval_reaches: r.get(10)?,
                })
            })
            .map_err(sql(&self.path))?;
        rows.collect::<rusqlite::Result<_>>().map_err(sql(&self.path))
    }

    /// The stored units, in plan order: each with its state, the hash of its files when
    /// planned, and when last verified (if it was).
    pub fn units(&self) -> Result<Vec<StoredUnit>> {
        let mut s =
            self.conn.prepare("SELECT notes, state, planned_hash, verified_hash FROM units ORDER BY position").map_err(sql(&self.path))?;
        let rows = s
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?, r.get::<_, Option<String>>(3)?)))
            .map_err(sql(&self.path))?;
        let mut out = Vec::new();
        for row in rows {
            let (notes, state, planned, done) = row.map_err(sql(&self.path))?;
            let unit: Unit =
                serde_json::from_str(&notes).map_err(|e| Error::Usage(format!("{}: a unit's notes: {e}", self.path.display())))?;
            out.push((unit, state, planned, done));
        }
        Ok(out)
    }

    fn unit(&self, unit_id: &str) -> Result<Unit> {
        let units = self.units()?;
        units
            .into_iter()
            .map(|u| u.0)
            .find(|u| u.unit_id == unit_id)
            .ok_or_else(|| Error::Usage(format!("no unit {unit_id:?} in the plan (`ckg plan status` lists them)")))
    }

    /// Records an answer to one of a unit's open questions.
    pub fn decide(&self, unit_id: &str, question: &str, answer: &str) -> Result<()> {
        let unit = self.unit(unit_id)?;
        if !unit.open_questions.iter().any(|q| q.id == question) {
            let ids: Vec<&str> = unit.open_questions.iter().map(|q| q.id.as_str()).collect();
            return Err(Error::Usage(format!(
                "unit {unit_id} has no open question {question:?} (it has: {})",
                if ids.is_empty() { "none".to_string() } else { ids.join(", ") }
            )));
        }
        self.conn
            .execute(
                "INSERT INTO decisions(unit_id, question_id, answer, decided_at) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(unit_id, question_id) DO UPDATE SET answer = excluded.answer, decided_at = excluded.decided_at",
                params![unit_id, question, answer, now()],
            )
            .map_err(sql(&self.path))?;
        Ok(())
    }

    /// The decided question ids of every unit.
    fn decided(&self) -> Result<HashMap<String, Vec<String>>> {
        let mut s = self.conn.prepare("SELECT unit_id, question_id FROM decisions").map_err(sql(&self.path))?;
        let rows = s.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))).map_err(sql(&self.path))?;
        let mut out: HashMap<String, Vec<String>> = HashMap::new();
        for row in rows {
            let (u, q) = row.map_err(sql(&self.path))?;
            out.entry(u).or_default().push(q);
        }
        Ok(out)
    }

    /// The last result of each command check of every unit.
    fn last_commands(&self) -> Result<HashMap<String, BTreeMap<String, String>>> {
        let mut s = self
            .conn
            .prepare("SELECT unit_id, check_name, result FROM runs WHERE kind = 'command' ORDER BY id")
            .map_err(sql(&self.path))?;
        let rows =
            s.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?))).map_err(sql(&self.path))?;
        let mut out: HashMap<String, BTreeMap<String, String>> = HashMap::new();
        for row in rows {
            let (u, k, v) = row.map_err(sql(&self.path))?;
            out.entry(u).or_default().insert(k, v);
        }
        Ok(out)
    }

    /// Re-evaluates every unit on the current index and stores the states.
    pub fn status(&self, index: &Index, packs: &[Pack]) -> Result<StatusAnswer> {
        self.status_with(index, packs, false)
    }

    /// [`Ledger::status`]; with `recheck`, every unit is evaluated from scratch (what was
    /// kept from earlier evaluations is ignored).
    pub fn status_with(&self, index: &Index, packs: &[Pack], recheck: bool) -> Result<StatusAnswer> {
        if recheck {
            self.conn.execute("UPDATE units SET eval_hash = NULL", []).map_err(sql(&self.path))?;
        }
        let (_, migration) = migration_of(packs)?;
        let root = PathBuf::from(index.root().unwrap_or_default());
        // One transaction: a consistent read of the ledger, and one write of what was found.
        let tx = self.conn.unchecked_transaction().map_err(sql(&self.path))?;
        let units = self.heads()?;
        let evaluated = self.evaluate(index, packs, &migration.packages, &root, &units)?;
        let all_commands = self.last_commands()?;
        let all_decided = self.decided()?;
        let mut out = Vec::new();
        for (unit, eval) in units.into_iter().zip(evaluated) {
            let Head { unit_id, position, paths, uses_framework, questions, planned_hash, verified_hash, .. } = unit;
            let Evaluation { legacy, violations, reaches, hash } = eval;
            let commands = all_commands.get(&unit_id).cloned().unwrap_or_default();
            let decided = all_decided.get(&unit_id).cloned().unwrap_or_default();
            let undecided: Vec<String> = questions.into_iter().filter(|q| !decided.contains(q)).collect();
            let edited = hash != planned_hash;
            // Command results are about the files as they were when run.
            let stale = verified_hash.as_deref().is_some_and(|h| h != hash);
            let commands_pass = commands.values().all(|r| r == "pass");
            // A unit that used the framework only through others is migrated when it no longer
            // reaches it at all (or a verification passed).
            let checked = uses_framework || !commands.is_empty() || !reaches;
            let (state, reason) = if legacy == 0 && violations == 0 && commands_pass && checked {
                (
                    "done",
                    if commands.is_empty() {
                        "no legacy reference, constraints pass, the framework is not reached (no command run yet)"
                    } else {
                        "no legacy reference, constraints and commands pass"
                    },
                )
            } else if !commands_pass && !stale {
                ("failed", "its last verification failed")
            } else if edited {
                ("in_progress", "edited; legacy references, violations or failed commands remain")
            } else if !undecided.is_empty() {
                ("needs_decision", "open questions without a decision")
            } else if !checked && legacy == 0 && violations == 0 {
                ("pending", "reaches the framework through other units: done when it no longer does, or when its verification passes")
            } else {
                ("pending", "not started")
            };
            let done = (state == "done").then_some(hash.clone());
            self.conn
                .prepare_cached("UPDATE units SET state = ?2, done_hash = coalesce(?3, done_hash) WHERE unit_id = ?1")
                .and_then(|mut st| st.execute(params![unit_id, state, done]))
                .map_err(sql(&self.path))?;
            out.push(UnitStatus {
                unit_id,
                position,
                state: state.into(),
                paths,
                legacy_references: legacy,
                violations,
                commands,
                undecided,
                edited,
                reason: reason.into(),
            });
        }
        tx.commit().map_err(sql(&self.path))?;
        let mut counts = BTreeMap::new();
        for u in &out {
            *counts.entry(u.state.clone()).or_default() += 1;
        }
        Ok(StatusAnswer {
            generation: index.generation,
            pack: self.pack(),
            baseline_generation: self.meta("baseline_generation").and_then(|g| g.parse().ok()).unwrap_or(0),
            units: out,
            counts,
        })
    }

    /// What the graph says of every unit now: legacy references, violations caused by its
    /// files, whether it still reaches the framework. Kept in the ledger with the contents it
    /// was computed from: after an edit only what the changed files can affect is computed
    /// again (a check of those files), and whether units reach the framework only when a
    /// unit started or stopped using it, or a unit that uses it only through others changed.
    fn evaluate(&self, index: &Index, packs: &[Pack], packages: &[String], root: &Path, units: &[Head]) -> Result<Vec<Evaluation>> {
        // (files' hash, legacy references, violations, reaches) as last evaluated.
        type Evaluated = (Option<String>, Option<i64>, Option<i64>, Option<i64>);
        let cached: Vec<Evaluated> =
            units.iter().map(|u| (u.eval_hash.clone(), u.eval_legacy, u.eval_violations, u.eval_reaches)).collect();
        let hashes: Vec<String> = units.iter().map(|u| files_hash(root, &u.paths)).collect();
        let fresh = cached.iter().any(|c| c.0.is_none() || c.1.is_none() || c.2.is_none() || c.3.is_none());
        let changed: Vec<usize> = (0..units.len()).filter(|&i| cached[i].0.as_deref() != Some(hashes[i].as_str())).collect();
        // Legacy references: one query per package.
        let mut legacy_by_file: HashMap<String, usize> = HashMap::new();
        for package in packages {
            for e in index.edges_to_prefix(
                package,
                &["imports", "calls", "instantiates", "references", "inherits", "implements", "writes"],
                None,
            )? {
                if uses_package(&e.edge.dst, package) {
                    *legacy_by_file.entry(e.edge.file).or_default() += 1;
                }
            }
        }
        let legacy: Vec<usize> = units.iter().map(|u| u.paths.iter().map(|p| legacy_by_file.get(p).copied().unwrap_or(0)).sum()).collect();
        // Violations, counted against the unit whose file must change.
        let set = RuleSet { packs: packs.to_vec() };
        let count = |answer: &crate::rules::CheckAnswer, paths: &[String]| answer.violations.iter().filter(|v| v.caused_in(paths)).count();
        let mut violations: Vec<usize> = cached.iter().map(|c| c.2.unwrap_or(0) as usize).collect();
        if fresh {
            let answer = set.check(index, &CheckOptions::default())?;
            for (i, u) in units.iter().enumerate() {
                violations[i] = count(&answer, &u.paths);
            }
        } else if !changed.is_empty() {
            let files: Vec<String> = changed.iter().flat_map(|&i| units[i].paths.clone()).collect();
            let answer = set.check(index, &CheckOptions { files: Some(files), baseline: None })?;
            let scope: std::collections::HashSet<&str> = answer.scope.iter().flatten().map(String::as_str).collect();
            for (i, u) in units.iter().enumerate() {
                if u.paths.iter().all(|p| scope.contains(p.as_str())) {
                    violations[i] = count(&answer, &u.paths);
                }
            }
        }
        // Whether each unit still reaches the framework.
        let flipped = (0..units.len()).any(|i| cached[i].1.is_none_or(|c| (c == 0) != (legacy[i] == 0)));
        let indirect_changed = changed.iter().any(|&i| !units[i].uses_framework);
        let reaches: Vec<bool> = if fresh || flipped || indirect_changed {
            let mut reaching: std::collections::HashSet<String> = std::collections::HashSet::new();
            for package in packages {
                let opts = ckg_query::ImpactOptions { depth: crate::plan::PLAN_DEPTH, ..ckg_query::ImpactOptions::default() };
                match index.impact(package, &opts) {
                    Ok(a) => reaching.extend(a.files.into_iter().map(|f| f.path)),
                    Err(ckg_query::Error::NotFound(_)) => {}
                    Err(e) => return Err(e.into()),
                }
            }
            units.iter().map(|u| u.paths.iter().any(|p| reaching.contains(p))).collect()
        } else {
            cached.iter().map(|c| c.3.unwrap_or(1) != 0).collect()
        };
        for (i, u) in units.iter().enumerate() {
            let same = cached[i].0.as_deref() == Some(hashes[i].as_str())
                && cached[i].1 == Some(legacy[i] as i64)
                && cached[i].2 == Some(violations[i] as i64)
                && cached[i].3 == Some(reaches[i] as i64);
            if same {
                continue;
            }
            self.conn
                .prepare_cached(
                    "UPDATE units SET eval_hash = ?2, eval_legacy = ?3, eval_violations = ?4, eval_reaches = ?5 WHERE unit_id = ?1",
                )
                .and_then(|mut st| st.execute(params![u.unit_id, hashes[i], legacy[i] as i64, violations[i] as i64, reaches[i] as i64]))
                .map_err(sql(&self.path))?;
        }
        Ok((0..units.len())
            .map(|i| Evaluation { legacy: legacy[i], violations: violations[i], reaches: reaches[i], hash: hashes[i].clone() })
            .collect())
    }

    /// Runs a unit's checks (commands in the repository root with their time limits, output
    /// captured to files next to the ledger), records each run, and sets the unit's state.
    pub fn verify(&self, index: &Index, packs: &[Pack], unit_id: &str, timeout: Option<Duration>) -> Result<VerifyAnswer> {
        let unit = self.unit(unit_id)?;
        let (_, migration) = migration_of(packs)?;
        self.conn.execute("UPDATE units SET state = 'verifying' WHERE unit_id = ?1", [unit_id]).map_err(sql(&self.path))?;
        let root = PathBuf::from(index.root().unwrap_or_default());
        let logs = self.path.with_file_name("plan-runs");
        std::fs::create_dir_all(&logs).map_err(|e| Error::Usage(format!("{}: {e}", logs.display())))?;
        let mut runs = Vec::new();
        for check in &unit.verification {
            let started = Instant::now();
            let (result, failure, detail, output) = match check.kind.as_str() {
                "command" => {
                    let limit = timeout.unwrap_or(Duration::from_secs(check.timeout_s.unwrap_or(600)));
                    let id = self
                        .conn
                        .query_row("SELECT coalesce(max(id), 0) + 1 FROM runs", [], |r| r.get::<_, i64>(0))
                        .map_err(sql(&self.path))?;
                    let log = logs.join(format!("{}-{id}-{}.log", sanitize(unit_id), check.name));
                    let (result, detail) = run_command(&check.run, &root, limit, &log)?;
                    let failure = match result.as_str() {
                        "pass" => None,
                        "timeout" => Some("timeout".to_string()),
                        _ => Some(classify(&std::fs::read_to_string(&log).unwrap_or_default()).to_string()),
                    };
                    (result, failure, detail, Some(log.display().to_string()))
                }
                "constraint" => {
                    let set = RuleSet { packs: packs.to_vec() };
                    let answer = set.check(index, &CheckOptions { files: Some(unit.source.paths.clone()), baseline: None })?;
                    let mine: Vec<_> = answer.violations.iter().filter(|v| v.caused_in(&unit.source.paths)).collect();
                    match mine.first() {
                        None => ("pass".into(), None, "no violation in the unit's files".into(), None),
                        Some(v) => (
                            "fail".into(),
                            Some("constraint".into()),
                            format!("{} violation(s); first: {}:{} {}", mine.len(), v.file, v.line, v.message),
                            None,
                        ),
                    }
                }
                _ => {
                    let n = legacy_references(index, &unit.source.paths, &migration.packages)?;
                    if n == 0 {
                        ("pass".into(), None, "no edge to the source framework remains".into(), None)
                    } else {
                        (
                            "fail".into(),
                            Some("legacy_reference".into()),
                            format!("{n} edge(s) to {} remain", migration.packages.join(", ")),
                            None,
                        )
                    }
                }
            };
            let duration_ms = started.elapsed().as_millis() as u64;
            self.conn
                .execute(
                    "INSERT INTO runs(unit_id, check_name, kind, started_at, duration_ms, result, failure, detail, output)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                    params![unit_id, check.name, check.kind, now(), duration_ms as i64, result, failure, detail, output],
                )
                .map_err(sql(&self.path))?;
            runs.push(Run {
                unit_id: unit_id.into(),
                check: check.name.clone(),
                kind: check.kind.clone(),
                result,
                failure,
                detail,
                duration_ms,
                output,
            });
        }
        let passed = runs.iter().all(|r| r.result == "pass");
        let state = if passed { "done" } else { "failed" };
        let hash = files_hash(&root, &unit.source.paths);
        self.conn
            .execute(
                "UPDATE units SET state = ?2, verified_hash = ?3, done_hash = CASE WHEN ?2 = 'done' THEN ?3 ELSE done_hash END WHERE unit_id = ?1",
                params![unit_id, state, hash],
            )
            .map_err(sql(&self.path))?;
        Ok(VerifyAnswer { unit_id: unit_id.into(), runs, state: state.into() })
    }
}

/// What `status` reads of a unit.
struct Head {
    unit_id: String,
    position: usize,
    paths: Vec<String>,
    uses_framework: bool,
    questions: Vec<String>,
    planned_hash: String,
    verified_hash: Option<String>,
    eval_hash: Option<String>,
    eval_legacy: Option<i64>,
    eval_violations: Option<i64>,
    eval_reaches: Option<i64>,
}

/// What `status` found of one unit.
struct Evaluation {
    legacy: usize,
    violations: usize,
    reaches: bool,
    hash: String,
}

/// Edges from some files to a set of packages (or their members).
pub fn legacy_references(index: &Index, paths: &[String], packages: &[String]) -> Result<usize> {
    let mut n = 0;
    for p in paths {
        for e in index.edges_in_file(p)?.into_values().flatten() {
            if packages.iter().any(|pkg| uses_package(&e.edge.dst, pkg)) {
                n += 1;
            }
        }
    }
    Ok(n)
}

fn sanitize(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect()
}

/// Runs `sh -c COMMAND` in `root` with a time limit, output to `log`: (`pass` / `fail` /
/// `timeout`, a one-line detail).
fn run_command(command: &str, root: &Path, limit: Duration, log: &Path) -> Result<(String, String)> {
    let file = std::fs::File::create(log).map_err(|e| Error::Usage(format!("{}: {e}", log.display())))?;
    let err = file.try_clone().map_err(|e| Error::Usage(format!("{}: {e}", log.display())))?;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(root)
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err)
        .spawn()
        .map_err(|e| Error::Usage(format!("cannot run {command:?}: {e}")))?;
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().map_err(|e| Error::Usage(e.to_string()))? {
            return Ok(match status.code() {
                Some(0) => ("pass".into(), "exit status 0".into()),
                Some(c) => ("fail".into(), format!("exit status {c}")),
                None => ("fail".into(), "killed by a signal".into()),
            });
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(("timeout".into(), format!("stopped after {} s", limit.as_secs())));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What kind of failure a command's output shows: a build (compile or type errors, missing
/// modules) or a test failure.
fn classify(output: &str) -> &'static str {
    let build = [
        "error TS",
        "SyntaxError",
        "Cannot find module",
        "ModuleNotFoundError",
        "ImportError",
        "error[E",
        "Compilation failed",
        "command not found",
    ];
    if build.iter().any(|m| output.contains(m)) { "build" } else { "test" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_are_classified() {
        assert_eq!(classify("src/a.ts(3,1): error TS2304: Cannot find name 'x'"), "build");
        assert_eq!(classify("E   ModuleNotFoundError: No module named 'flask'"), "build");
        assert_eq!(classify("FAILED tests/test_a.py::test_b - assert 1 == 2"), "test");
    }

    #[test]
    fn commands_pass_fail_and_time_out() {
        let dir = std::env::temp_dir().join(format!("ckg-ledger-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("out.log");
        assert_eq!(run_command("echo hi", &dir, Duration::from_secs(10), &log).unwrap().0, "pass");
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "hi\n");
        assert_eq!(run_command("exit 3", &dir, Duration::from_secs(10), &log).unwrap(), ("fail".into(), "exit status 3".into()));
        let t = Instant::now();
        assert_eq!(run_command("sleep 5", &dir, Duration::from_millis(200), &log).unwrap().0, "timeout");
        assert!(t.elapsed() < Duration::from_secs(4));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
