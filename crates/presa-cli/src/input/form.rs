//! An elicitation's form: its fields read from the requested schema, filled in from
//! `--answer` or asked on the terminal one by one.

use dialoguer::{Confirm, Input, MultiSelect, Select};
use presa::core::{ElicitRequestParams, ElicitResult, ErrorObject, JsonObject};
use serde_json::{Map, Value};

use crate::output::printable;

/// One field of a form, as the schema describes it.
#[derive(Debug)]
struct Field<'a> {
    name: &'a str,
    label: String,
    required: bool,
    kind: Kind,
    default: Option<&'a Value>,
}

/// What a field takes.
#[derive(Debug, PartialEq)]
enum Kind {
    Text,
    Number,
    Integer,
    Boolean,
    /// One of these values (with their labels).
    OneOf(Vec<(Value, String)>),
    /// Any of these values (with their labels).
    AnyOf(Vec<(Value, String)>),
}

/// The fields of the requested schema, in its order.
fn fields(schema: &Value) -> Vec<Field<'_>> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema["properties"].as_object() else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| {
            let title = property["title"].as_str().unwrap_or(name);
            let label = match property["description"].as_str() {
                Some(description) => format!("{title} ({description})"),
                None => title.to_owned(),
            };
            let label = printable(&label);
            Field {
                name,
                label,
                required: required.contains(&name.as_str()),
                kind: kind(property),
                default: property.get("default"),
            }
        })
        .collect()
}

fn kind(property: &Value) -> Kind {
    match property["type"].as_str() {
        Some("boolean") => Kind::Boolean,
        Some("number") => Kind::Number,
        Some("integer") => Kind::Integer,
        Some("array") => Kind::AnyOf(choices(&property["items"])),
        _ => match choices(property) {
            options if options.is_empty() => Kind::Text,
            options => Kind::OneOf(options),
        },
    }
}

/// The values a schema allows with their labels: `enum` (labelled by `enumNames` when given),
/// or `oneOf`/`anyOf` entries of `const` and `title`.
fn choices(schema: &Value) -> Vec<(Value, String)> {
    if let Some(values) = schema["enum"].as_array() {
        let names = schema["enumNames"].as_array();
        return values
            .iter()
            .enumerate()
            .map(|(i, value)| {
                let label = names
                    .and_then(|names| names.get(i))
                    .and_then(Value::as_str)
                    .map_or_else(|| plain(value), printable);
                (value.clone(), label)
            })
            .collect();
    }
    let entries = schema["oneOf"].as_array().or(schema["anyOf"].as_array());
    entries
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let value = entry.get("const")?.clone();
            let label = entry["title"]
                .as_str()
                .map_or_else(|| plain(&value), printable);
            Some((value, label))
        })
        .collect()
}

/// A value as a person reads it: a string without its quotes.
fn plain(value: &Value) -> String {
    printable(
        &value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_owned),
    )
}

/// `text`, typed as `kind` takes it.
fn typed(kind: &Kind, text: &str) -> Result<Value, String> {
    let pick = |options: &[(Value, String)], text: &str| {
        options
            .iter()
            .find(|(value, label)| plain(value) == text || label == text)
            .map(|(value, _)| value.clone())
            .ok_or_else(|| {
                let known: Vec<String> = options.iter().map(|(v, _)| plain(v)).collect();
                format!("{text:?} is not one of {}", known.join(", "))
            })
    };
    match kind {
        Kind::Text => Ok(Value::String(text.to_owned())),
        Kind::Number => text
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| format!("{text:?} is not a number")),
        Kind::Integer => text
            .trim()
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("{text:?} is not an integer")),
        Kind::Boolean => match text.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "y" => Ok(Value::Bool(true)),
            "false" | "no" | "n" => Ok(Value::Bool(false)),
            _ => Err(format!("{text:?} is not true or false")),
        },
        Kind::OneOf(options) => pick(options, text),
        Kind::AnyOf(options) => {
            let parts: Vec<String> = match serde_json::from_str::<Vec<Value>>(text) {
                Ok(values) => values.iter().map(plain).collect(),
                Err(_) => text.split(',').map(|part| part.trim().to_owned()).collect(),
            };
            parts
                .iter()
                .filter(|part| !part.is_empty())
                .map(|part| pick(options, part))
                .collect::<Result<Vec<Value>, String>>()
                .map(Value::Array)
        }
    }
}

/// The form's content from `--answer` pairs: each typed by its field; a field the form does
/// not have, or a required one missing, is an error.
pub(super) fn from_answers(
    schema: &Value,
    answers: &[(String, String)],
) -> Result<JsonObject, String> {
    let fields = fields(schema);
    let mut content = Map::new();
    for (name, text) in answers {
        let field = fields
            .iter()
            .find(|field| field.name == name)
            .ok_or_else(|| {
                let known: Vec<&str> = fields.iter().map(|f| f.name).collect();
                format!(
                    "the form has no field {name:?} (it has: {})",
                    known.join(", ")
                )
            })?;
        content.insert(
            name.clone(),
            typed(&field.kind, text).map_err(|why| format!("{name}: {why}"))?,
        );
    }
    if let Some(missing) = fields
        .iter()
        .find(|field| field.required && !content.contains_key(field.name))
    {
        return Err(format!("the form needs {:?}", missing.name));
    }
    Ok(content)
}

/// Asks the form on the terminal (stderr), field by field, then whether to send it: accepted
/// with the answers, declined, or cancelled with Esc.
pub(super) fn ask(params: &ElicitRequestParams) -> Result<ElicitResult, ErrorObject> {
    let failed = |e: dialoguer::Error| ErrorObject::internal_error(format!("the terminal: {e}"));
    eprintln!("\nThe server asks: {}", printable(params.message()));
    let form = match params {
        ElicitRequestParams::Form(form) => form,
        ElicitRequestParams::Url(url) => {
            eprintln!("  {}", printable(&url.url));
            let open = Confirm::new()
                .with_prompt("Go there?")
                .default(false)
                .interact_opt()
                .map_err(failed)?;
            return Ok(match open {
                Some(true) => ElicitResult::accept_url(),
                Some(false) => ElicitResult::decline(),
                None => ElicitResult::cancel(),
            });
        }
        _ => return Ok(ElicitResult::decline()),
    };
    let schema = serde_json::to_value(&form.requested_schema)
        .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
    let mut content = Map::new();
    for field in fields(&schema) {
        let label = if field.required {
            field.label.clone()
        } else {
            format!("{} (optional)", field.label)
        };
        let value = match &field.kind {
            Kind::Boolean => {
                let mut confirm = Confirm::new().with_prompt(label);
                if let Some(default) = field.default.and_then(Value::as_bool) {
                    confirm = confirm.default(default);
                }
                Some(Value::Bool(confirm.interact().map_err(failed)?))
            }
            Kind::OneOf(options) => {
                let labels: Vec<&str> = options.iter().map(|(_, l)| l.as_str()).collect();
                let chosen = Select::new()
                    .with_prompt(label)
                    .items(&labels)
                    .default(0)
                    .interact()
                    .map_err(failed)?;
                options.get(chosen).map(|(value, _)| value.clone())
            }
            Kind::AnyOf(options) => {
                let labels: Vec<&str> = options.iter().map(|(_, l)| l.as_str()).collect();
                let chosen = MultiSelect::new()
                    .with_prompt(label)
                    .items(&labels)
                    .interact()
                    .map_err(failed)?;
                let values = chosen.iter().filter_map(|&i| options.get(i));
                Some(Value::Array(values.map(|(v, _)| v.clone()).collect()))
            }
            kind => {
                let mut input = Input::<String>::new()
                    .with_prompt(label)
                    .allow_empty(!field.required);
                if let Some(default) = field.default {
                    input = input.default(plain(default));
                }
                let typed_kind = kind;
                let input = input.validate_with(|text: &String| -> Result<(), String> {
                    if text.is_empty() {
                        return Ok(());
                    }
                    typed(typed_kind, text).map(drop)
                });
                let text = input.interact_text().map_err(failed)?;
                if text.is_empty() {
                    None
                } else {
                    Some(typed(kind, &text).map_err(ErrorObject::invalid_params)?)
                }
            }
        };
        if let Some(value) = value {
            content.insert(field.name.to_owned(), value);
        }
    }
    let send = Confirm::new()
        .with_prompt("Send these answers?")
        .default(true)
        .interact_opt()
        .map_err(failed)?;
    Ok(match send {
        Some(true) => ElicitResult::accept(content),
        Some(false) => ElicitResult::decline(),
        None => ElicitResult::cancel(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Name"},
                "age": {"type": "integer"},
                "score": {"type": "number"},
                "agree": {"type": "boolean"},
                "color": {"type": "string", "enum": ["red", "green"], "enumNames": ["Red", "Green"]},
                "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}}
            },
            "required": ["name"]
        })
    }

    fn answers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn answers_are_typed_by_their_fields() {
        let content = from_answers(
            &schema(),
            &answers(&[
                ("name", "007"),
                ("age", "42"),
                ("score", "9.5"),
                ("agree", "yes"),
                ("color", "Green"),
                ("size", "Large"),
                ("tags", "a, c"),
            ]),
        )
        .unwrap();
        assert_eq!(
            Value::Object(content),
            json!({"name": "007", "age": 42, "score": 9.5, "agree": true, "color": "green",
                   "size": "l", "tags": ["a", "c"]})
        );
    }

    #[test]
    fn a_wrong_or_missing_answer_says_which_field() {
        let wrong = |pairs: &[(&str, &str)]| from_answers(&schema(), &answers(pairs)).unwrap_err();
        assert!(wrong(&[("name", "x"), ("age", "old")]).contains("age"));
        assert!(wrong(&[("name", "x"), ("color", "blue")]).contains("red, green"));
        assert!(wrong(&[("name", "x"), ("nope", "1")]).contains("no field \"nope\""));
        assert!(wrong(&[("age", "1")]).contains("needs \"name\""));
    }
}
