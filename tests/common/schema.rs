//! A JSON Schema (2020-12) validator for the subset schemars emits and the OpenAPI document
//! uses. An unknown keyword is a test failure, never silently accepted.
#![allow(dead_code)]

use serde_json::Value;

/// Annotations, and `$defs` (definitions are checked where a `$ref` uses them).
const IGNORED: &[&str] =
    &["description", "title", "default", "examples", "format", "$schema", "readOnly", "writeOnly", "deprecated", "$defs"];

fn type_matches(t: &str, v: &Value) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        other => panic!("unknown type {other:?} in schema"),
    }
}

/// Errors of `value` against `schema`; `components` resolves `#/components/schemas/X` (and
/// `#/$defs/X`).
pub fn validate(schema: &Value, value: &Value, components: &Value, path: &str) -> Vec<String> {
    let mut errors = Vec::new();
    check(schema, value, components, path, &mut errors, 0);
    errors
}

fn check(schema: &Value, v: &Value, components: &Value, path: &str, errors: &mut Vec<String>, depth: usize) {
    assert!(depth < 64, "schema recursion too deep at {path}");
    let obj = match schema {
        Value::Bool(true) => return,
        Value::Bool(false) => {
            errors.push(format!("{path}: no value is allowed"));
            return;
        }
        Value::Object(o) => o,
        other => panic!("not a schema at {path}: {other}"),
    };
    for (key, kw) in obj {
        match key.as_str() {
            "$ref" => {
                let r = kw.as_str().unwrap();
                let name = r
                    .strip_prefix("#/components/schemas/")
                    .or_else(|| r.strip_prefix("#/$defs/"))
                    .unwrap_or_else(|| panic!("unsupported $ref {kw}"));
                let target = &components[name];
                assert!(!target.is_null(), "$ref {name} is not defined");
                check(target, v, components, path, errors, depth + 1);
            }
            "type" => {
                let ok = match kw {
                    Value::String(t) => type_matches(t, v),
                    Value::Array(ts) => ts.iter().any(|t| type_matches(t.as_str().unwrap(), v)),
                    _ => panic!("bad type keyword {kw}"),
                };
                if !ok {
                    errors.push(format!("{path}: {v} is not of type {kw}"));
                }
            }
            "properties" => {
                if let Some(o) = v.as_object() {
                    for (name, sub) in kw.as_object().unwrap() {
                        if let Some(x) = o.get(name) {
                            check(sub, x, components, &format!("{path}.{name}"), errors, depth + 1);
                        }
                    }
                }
            }
            "required" => {
                if let Some(o) = v.as_object() {
                    for name in kw.as_array().unwrap() {
                        if !o.contains_key(name.as_str().unwrap()) {
                            errors.push(format!("{path}: missing required {name}"));
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let Some(o) = v.as_object() {
                    let known: Vec<&str> = obj
                        .get("properties")
                        .and_then(|p| p.as_object())
                        .map(|p| p.keys().map(|k| k.as_str()).collect())
                        .unwrap_or_default();
                    for (name, x) in o {
                        if !known.contains(&name.as_str()) {
                            check(kw, x, components, &format!("{path}.{name}"), errors, depth + 1);
                        }
                    }
                }
            }
            "items" => {
                if let Some(a) = v.as_array() {
                    for (i, x) in a.iter().enumerate() {
                        check(kw, x, components, &format!("{path}[{i}]"), errors, depth + 1);
                    }
                }
            }
            "enum" => {
                if !kw.as_array().unwrap().contains(v) {
                    errors.push(format!("{path}: {v} is not one of {kw}"));
                }
            }
            "const" => {
                if kw != v {
                    errors.push(format!("{path}: {v} is not {kw}"));
                }
            }
            "anyOf" | "oneOf" => {
                let passing = kw.as_array().unwrap().iter().filter(|s| validate(s, v, components, path).is_empty()).count();
                let ok = if key == "anyOf" { passing >= 1 } else { passing == 1 };
                if !ok {
                    errors.push(format!("{path}: {v} matches {passing} of the {key} schemas"));
                }
            }
            "allOf" => {
                for s in kw.as_array().unwrap() {
                    check(s, v, components, path, errors, depth + 1);
                }
            }
            "minimum" => {
                if v.as_f64().is_some_and(|x| x < kw.as_f64().unwrap()) {
                    errors.push(format!("{path}: {v} < {kw}"));
                }
            }
            "maximum" => {
                if v.as_f64().is_some_and(|x| x > kw.as_f64().unwrap()) {
                    errors.push(format!("{path}: {v} > {kw}"));
                }
            }
            "minLength" => {
                if v.as_str().is_some_and(|s| (s.chars().count() as u64) < kw.as_u64().unwrap()) {
                    errors.push(format!("{path}: {v} is too short"));
                }
            }
            "minItems" => {
                if v.as_array().is_some_and(|a| (a.len() as u64) < kw.as_u64().unwrap()) {
                    errors.push(format!("{path}: too few items"));
                }
            }
            "maxItems" => {
                if v.as_array().is_some_and(|a| (a.len() as u64) > kw.as_u64().unwrap()) {
                    errors.push(format!("{path}: too many items"));
                }
            }
            k if IGNORED.contains(&k) => {}
            other => panic!("the test validator does not know the keyword {other:?} (at {path}); teach it before trusting it"),
        }
    }
}

#[cfg(test)]
mod tests {}
