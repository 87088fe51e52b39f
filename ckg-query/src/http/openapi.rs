//! `/openapi.json`: the OpenAPI 3.1 document, generated from [`super::ENDPOINTS`] (paths,
//! parameters) and from the answer types themselves (schemas, by schemars), so it describes
//! what the service really sends.

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use super::params::{Kind, Param};
use super::problem::{CODES, PROBLEM_JSON, Problem};
use super::{ENDPOINTS, MAX_BODY};

fn param_schema(p: &Param) -> Value {
    let one = match p.kind {
        Kind::Str => json!({"type": "string", "minLength": 1}),
        Kind::Int { min, max } => json!({"type": "integer", "minimum": min, "maximum": max}),
        Kind::Bool => json!({"type": "boolean"}),
        Kind::Enum(values) => json!({"type": "string", "enum": values}),
    };
    let mut s = if p.repeated { json!({"type": "array", "items": one}) } else { one };
    if let Some(d) = p.default {
        let default = match p.kind {
            Kind::Int { .. } => json!(d.parse::<i64>().unwrap_or_default()),
            Kind::Bool => json!(d == "true"),
            _ => json!(d),
        };
        s["default"] = default;
    }
    s
}

/// The whole document.
pub fn document() -> Value {
    document_with(&[])
}

/// The document with endpoints of other layers mounted after the service's own.
pub fn document_with(extra: &[super::Endpoint]) -> Value {
    let mut generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.meta_schema = None;
        })
        .into_generator();
    let problem_ref = generator.subschema_for::<Problem>();
    let codes: Vec<String> = CODES.iter().map(|c| format!("`{}` ({})", c.0, c.1)).collect();
    let mut paths = Map::new();
    for e in ENDPOINTS.iter().chain(extra) {
        let answer = (e.answer)(&mut generator);
        let parameters: Vec<Value> = e
            .params
            .iter()
            .map(|p| {
                let mut v = json!({
                    "name": p.name, "in": "query", "required": p.required, "description": p.doc, "schema": param_schema(p),
                });
                if p.repeated {
                    v["style"] = json!("form");
                    v["explode"] = json!(true);
                }
                v
            })
            .collect();
        let mut op = json!({
            "operationId": e.path.trim_start_matches('/').replace(['/', '.'], "_"),
            "summary": e.summary,
            "description": e.description,
            "parameters": parameters,
            "responses": {
                "200": {"description": "The answer.", "content": {e.media: {"schema": answer}}},
                "default": {
                    "description": "An RFC 9457 problem; `code` is one of the service's stable codes.",
                    "content": {PROBLEM_JSON: {"schema": problem_ref.clone()}},
                },
            },
        });
        if let Some(body) = e.body {
            op["requestBody"] = json!({
                "required": true,
                "description": format!("JSON, at most {MAX_BODY} bytes."),
                "content": {"application/json": {"schema": body(&mut generator)}},
            });
        }
        let method = e.method.as_str().to_ascii_lowercase();
        paths.entry(e.path.to_string()).or_insert_with(|| json!({}))[method] = op;
    }
    let schemas = generator.take_definitions(true);
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "ckg",
            "version": env!("CARGO_PKG_VERSION"),
            "description": format!(
                "Queries on a code knowledge graph. Every answer names the generation it read. Lists are paged (page_size, page_token, next_page_token). Errors are application/problem+json with a stable code: {}.",
                codes.join(", ")
            ),
        },
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "description": "Required when the server runs with --token-file."}},
        },
        "security": [{}, {"bearer": []}],
        "paths": paths,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_endpoint_is_documented_with_a_resolvable_answer_schema() {
        let doc = document();
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        for e in ENDPOINTS {
            let method = e.method.as_str().to_ascii_lowercase();
            let op = &doc["paths"][e.path][&method];
            assert!(op.is_object(), "{} {method} missing", e.path);
            let schema = &op["responses"]["200"]["content"][e.media]["schema"];
            if let Some(r) = schema["$ref"].as_str() {
                let name = r.trim_start_matches("#/components/schemas/");
                assert!(schemas.contains_key(name), "{r} is not defined");
            }
            assert_eq!(op["parameters"].as_array().unwrap().len(), e.params.len());
        }
        assert!(schemas.contains_key("Problem"));
        assert!(schemas.contains_key("ImpactAnswer"));
    }
}
