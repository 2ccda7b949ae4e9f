//! Prompt arguments and template variables read into a Rust type: strings on the wire, each read
//! as what its field's derived schema says (a number, a boolean, an enum value, a string).

use std::collections::BTreeMap;
use std::future::Future;
use std::marker::PhantomData;

use presa_core::{ErrorObject, JsonObject, Prompt, PromptArgument, ResourceTemplate, UriTemplate};
use presa_schema::Validator;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::BoxFuture;
use crate::context::Context;
use crate::definitions::SchemaCompiler;
use crate::error::{BuildError, DefinitionKind};
use crate::json_schema::{input_schema_for, struct_properties};
use crate::prompt::{IntoPromptResult, PromptArgs, PromptHandler, PromptOutcome};
use crate::resource::{
    IntoResourceContents, ReadTarget, ResourceOutcome, ResourceTemplateHandler, Variables,
};
use crate::scopes::Scoped;
use crate::tool::Args;

/// One field of a type read from strings.
#[derive(Debug)]
struct StringField {
    name: String,
    title: Option<String>,
    description: Option<String>,
    required: bool,
    /// Read as JSON (a number, boolean or non-string enum field) rather than kept as a string.
    parsed: bool,
}

/// How a `T` is read from named strings: its fields, and its schema compiled to check them.
#[derive(Debug)]
pub(crate) struct StringFields {
    fields: Vec<StringField>,
    description: Option<String>,
    validator: Option<Box<dyn Validator>>,
}

impl StringFields {
    /// The fields of `T`, or the first field that cannot be read from a string (its name and
    /// why).
    fn of<T: JsonSchema>(
        compiler: Option<&SchemaCompiler>,
    ) -> Result<Self, (Option<String>, String)> {
        let schema = input_schema_for::<T>();
        let properties = struct_properties(&schema).map_err(|reason| {
            (
                None,
                format!("takes a {} which {reason}", std::any::type_name::<T>()),
            )
        })?;
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut fields = Vec::new();
        for (name, property) in properties {
            let types =
                scalar_types(property).map_err(|reason| (Some(name.clone()), reason.to_owned()))?;
            let text = |key: &str| property.get(key).and_then(Value::as_str).map(str::to_owned);
            fields.push(StringField {
                name: name.clone(),
                title: text("title"),
                description: text("description"),
                required: required.contains(&name.as_str()),
                parsed: !types.string,
            });
        }
        let validator = match compiler {
            Some(compile) => Some(
                compile(&Value::Object(schema.clone()))
                    .map_err(|error| (None, format!("has no usable schema: {error}")))?,
            ),
            None => None,
        };
        Ok(Self {
            fields,
            description: schema
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
            validator,
        })
    }

    /// Reads `values` as a `T`; the error says what does not fit.
    fn read<T: DeserializeOwned>(&self, values: BTreeMap<String, String>) -> Result<T, String> {
        let mut object = JsonObject::new();
        for (name, text) in values {
            let parsed = self
                .fields
                .iter()
                .any(|field| field.parsed && field.name == name);
            let value = match serde_json::from_str::<Value>(&text) {
                Ok(value @ (Value::Number(_) | Value::Bool(_) | Value::Null)) if parsed => value,
                _ => Value::String(text),
            };
            object.insert(name, value);
        }
        let object = Value::Object(object);
        if let Some(validator) = &self.validator {
            validator
                .validate(&object)
                .map_err(|error| format!("Invalid arguments {error}"))?;
        }
        T::deserialize(object).map_err(|error| format!("Invalid arguments: {error}"))
    }

    fn arguments(&self) -> Vec<PromptArgument> {
        self.fields
            .iter()
            .map(|field| {
                let mut argument = PromptArgument::new(&field.name).required(field.required);
                argument.title = field.title.clone();
                argument.description = field.description.clone();
                argument
            })
            .collect()
    }
}

/// Which JSON types a property admits, when they are all scalars.
#[derive(Debug, Default)]
struct Scalars {
    string: bool,
}

fn scalar_types(schema: &Value) -> Result<Scalars, &'static str> {
    let Value::Object(schema) = schema else {
        return Err("admits any value; it must be a string, number, boolean or enum");
    };
    let mut scalars = Scalars::default();
    let mut note = |name: &str| -> Result<(), &'static str> {
        match name {
            "string" => scalars.string = true,
            "integer" | "number" | "boolean" | "null" => {}
            "array" => return Err("is a list; this definition's values are single strings"),
            "object" => return Err("is an object; this definition's values are single strings"),
            _ => return Err("has a type that is not a JSON Schema type"),
        }
        Ok(())
    };
    if let Some(ty) = schema.get("type") {
        match ty {
            Value::String(name) => note(name)?,
            Value::Array(names) => {
                for name in names {
                    note(name.as_str().unwrap_or_default())?;
                }
            }
            _ => return Err("has a type that is not a JSON Schema type"),
        }
        return Ok(scalars);
    }
    let values: Vec<&Value> = match (schema.get("enum"), schema.get("const")) {
        (Some(Value::Array(options)), _) => options.iter().collect(),
        (_, Some(value)) => vec![value],
        _ => Vec::new(),
    };
    if !values.is_empty() {
        for value in values {
            note(json_type(value))?;
        }
        return Ok(scalars);
    }
    for choice in ["oneOf", "anyOf"] {
        if let Some(Value::Array(options)) = schema.get(choice) {
            for option in options {
                scalars.string |= scalar_types(option)?.string;
            }
            return Ok(scalars);
        }
    }
    Err("admits any value; it must be a string, number, boolean or enum")
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn field_error(
    kind: DefinitionKind,
    name: &str,
    (field, reason): (Option<String>, String),
) -> BuildError {
    BuildError::Field {
        kind,
        name: name.to_owned(),
        field,
        reason,
    }
}

/// A typed prompt's definition (its arguments from `T`'s fields, its description from `T`'s doc
/// comment unless it has one) and handler.
pub(crate) fn typed_prompt<T, F>(
    prompt: Scoped<Prompt>,
    handler: F,
    compiler: Option<&SchemaCompiler>,
) -> Result<(Scoped<Prompt>, FieldsHandler<F, T>), BuildError>
where
    T: JsonSchema,
{
    let mut prompt = prompt;
    let fields = StringFields::of::<T>(compiler)
        .map_err(|error| field_error(DefinitionKind::Prompt, &prompt.definition.name, error))?;
    let definition = &mut prompt.definition;
    definition.arguments = Some(fields.arguments());
    if definition.description.is_none() {
        definition.description = fields.description.clone();
    }
    Ok((
        prompt,
        FieldsHandler {
            f: handler,
            fields,
            _input: PhantomData,
        },
    ))
}

/// A handler of `Args<T>` read from named strings: a typed prompt's (its arguments) or a typed
/// resource template's (its variables).
pub(crate) struct FieldsHandler<F, T> {
    f: F,
    fields: StringFields,
    _input: PhantomData<fn(T)>,
}

impl<F, T, Fut, R> PromptHandler for FieldsHandler<F, T>
where
    F: Fn(Args<T>, Context) -> Fut + Send + Sync + 'static,
    T: DeserializeOwned + Send + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoPromptResult,
{
    fn get(&self, arguments: PromptArgs, cx: Context) -> BoxFuture<'static, PromptOutcome> {
        match self.fields.read::<T>(arguments) {
            Ok(input) => {
                let fut = (self.f)(Args(input), cx);
                Box::pin(async move { fut.await.into_prompt_result() })
            }
            Err(message) => Box::pin(async move { Err(ErrorObject::invalid_params(message)) }),
        }
    }
}

/// A typed resource template's handler, after checking that the template has a variable for
/// every required field of `T`.
pub(crate) fn typed_template<T, F>(
    template: &Scoped<ResourceTemplate>,
    handler: F,
    compiler: Option<&SchemaCompiler>,
) -> Result<FieldsHandler<F, T>, BuildError>
where
    T: JsonSchema,
{
    let uri_template = &template.definition.uri_template;
    let fields = StringFields::of::<T>(compiler)
        .map_err(|error| field_error(DefinitionKind::ResourceTemplate, uri_template, error))?;
    // a template that does not parse is reported as such when it is added
    if let Ok(parsed) = UriTemplate::parse(uri_template) {
        let variables: Vec<&str> = parsed.variables().collect();
        if let Some(missing) = fields
            .fields
            .iter()
            .find(|field| field.required && !variables.contains(&field.name.as_str()))
        {
            return Err(field_error(
                DefinitionKind::ResourceTemplate,
                uri_template,
                (
                    Some(missing.name.clone()),
                    "is required but the template has no such variable".into(),
                ),
            ));
        }
    }
    Ok(FieldsHandler {
        f: handler,
        fields,
        _input: PhantomData,
    })
}

/// As a resource template's: variables that do not read as a `T` (`{id}` is `abc` where `id`
/// is a number) name no resource.
impl<F, T, Fut, R> ResourceTemplateHandler for FieldsHandler<F, T>
where
    F: Fn(Args<T>, Context) -> Fut + Send + Sync + 'static,
    T: DeserializeOwned + Send + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoResourceContents,
{
    fn read(
        &self,
        uri: String,
        variables: Variables,
        mime_type: Option<String>,
        cx: Context,
    ) -> BoxFuture<'static, ResourceOutcome> {
        match self.fields.read::<T>(variables) {
            Ok(input) => {
                let fut = (self.f)(Args(input), cx);
                Box::pin(async move {
                    fut.await.into_resource_contents(ReadTarget {
                        uri: &uri,
                        mime_type: mime_type.as_deref(),
                    })
                })
            }
            Err(_) => Box::pin(async { ResourceOutcome::NotFound }),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use std::sync::Arc;

    #[derive(serde::Deserialize, JsonSchema, Debug, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Tone {
        Formal,
        Casual,
    }

    /// Review a note.
    #[derive(serde::Deserialize, JsonSchema, Debug, PartialEq)]
    struct Review {
        /// The note's id.
        id: u64,
        tone: Option<Tone>,
        strict: Option<bool>,
        title: Option<String>,
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        tags: Vec<String>,
    }

    fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn compiler() -> SchemaCompiler {
        Arc::new(presa_schema::compile)
    }

    #[test]
    fn strings_are_read_as_their_fields_say() {
        let fields = StringFields::of::<Review>(Some(&compiler())).unwrap();
        let review: Review = fields
            .read(values(&[
                ("id", "7"),
                ("tone", "casual"),
                ("strict", "true"),
                ("title", "42"),
            ]))
            .unwrap();
        assert_eq!(
            review,
            Review {
                id: 7,
                tone: Some(Tone::Casual),
                strict: Some(true),
                title: Some("42".into())
            }
        );
        let error = fields
            .read::<Review>(values(&[("id", "seven")]))
            .unwrap_err();
        assert_eq!(
            error,
            "Invalid arguments at /id: expected integer, got string"
        );
        let arguments = fields.arguments();
        assert_eq!(arguments[0].name, "id");
        assert_eq!(arguments[0].required, Some(true));
        assert_eq!(arguments[0].description.as_deref(), Some("The note's id."));
        assert_eq!(arguments[1].required, None);
        assert_eq!(fields.description.as_deref(), Some("Review a note."));
    }

    #[test]
    fn fields_that_are_not_single_values_are_refused_by_name() {
        let error = StringFields::of::<Nested>(None).unwrap_err();
        assert_eq!(error.0.as_deref(), Some("tags"));
        assert!(error.1.starts_with("is a list"), "{}", error.1);
        // a map is not a struct: it has no fields to name
        let error =
            StringFields::of::<std::collections::HashMap<String, String>>(None).unwrap_err();
        assert_eq!(error.0, None);
        assert!(
            error.1.ends_with("is not a struct with named fields"),
            "{}",
            error.1
        );
    }
}
