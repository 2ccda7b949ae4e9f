//! Tools and a prompt that ask the client for input: the 2025-era sampling and elicitation
//! scenarios, and the 2026-07-28 `input-required-result-*` ones. One handler serves both eras:
//! presa sends a real request on a 2025 session and answers `input_required` on 2026-07-28.

use presa_core::{CreateMessageRequestParams, ElicitRequestParams, ElicitResult, Prompt, Tool};
use presa_server::{Context, InputError, PromptArgs, ServerBuilder};
use serde_json::{Value, json};

use crate::tools::object;

/// An elicitation request from its JSON form (message, schema, and so on).
fn elicitation(value: Value) -> Result<ElicitRequestParams, InputError> {
    serde_json::from_value(value).map_err(|e| InputError::InvalidAnswer(e.to_string()))
}

/// A sampling request asking one question.
fn question(text: &str, max_tokens: u64) -> Result<CreateMessageRequestParams, InputError> {
    serde_json::from_value(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        "maxTokens": max_tokens
    }))
    .map_err(|e| InputError::InvalidAnswer(e.to_string()))
}

/// A form asking for one string field.
fn ask_for(message: &str, field: &str) -> Result<ElicitRequestParams, InputError> {
    elicitation(json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}
    }))
}

/// A field of an accepted elicitation, as text.
fn field(answer: &ElicitResult, name: &str) -> String {
    match answer.content.as_ref().and_then(|c| c.get(name)) {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

fn described(action: &ElicitResult) -> String {
    let action_name = serde_json::to_value(action.action).unwrap_or_default();
    let content = action
        .content
        .as_ref()
        .map(|c| Value::Object(c.clone()))
        .unwrap_or(Value::Null);
    format!(
        "action={}, content={content}",
        action_name.as_str().unwrap_or("?")
    )
}

/// Adds the tools (after the others) and the prompt.
pub(crate) fn register(builder: ServerBuilder) -> ServerBuilder {
    let prompt_schema = object(
        json!({"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]}),
    );
    let message_schema = object(
        json!({"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}),
    );
    builder
        .tool(
            Tool::new("test_sampling", prompt_schema).description("Asks the client's model the given prompt."),
            |args: Value, cx: Context| async move {
                let prompt = args["prompt"].as_str().unwrap_or_default().to_owned();
                let answer = cx.sample(question(&prompt, 100)?).await?;
                let text = answer.content.as_slice().first().and_then(|c| c.as_text()).unwrap_or_default().to_owned();
                Ok::<_, InputError>(format!("LLM response: {text}"))
            },
        )
        .tool(
            Tool::new("test_elicitation", message_schema).description("Asks the user for a username and an email."),
            |args: Value, cx: Context| async move {
                let request = elicitation(json!({
                    "message": args["message"],
                    "requestedSchema": {
                        "type": "object",
                        "properties": {
                            "username": {"type": "string", "description": "User's response"},
                            "email": {"type": "string", "description": "User's email address"}
                        },
                        "required": ["username", "email"]
                    }
                }))?;
                let answer = cx.elicit(request).await?;
                Ok::<_, InputError>(format!("User response: {}", described(&answer)))
            },
        )
        .tool(
            Tool::without_params("test_elicitation_sep1034_defaults").description("Asks for fields that have defaults."),
            |_: Value, cx: Context| async move {
                let request = elicitation(json!({
                    "message": "Please review your details",
                    "requestedSchema": {"type": "object", "properties": {
                        "name": {"type": "string", "default": "John Doe"},
                        "age": {"type": "integer", "default": 30},
                        "score": {"type": "number", "default": 95.5},
                        "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                        "verified": {"type": "boolean", "default": true}
                    }}
                }))?;
                let answer = cx.elicit(request).await?;
                Ok::<_, InputError>(format!("Elicitation completed: {}", described(&answer)))
            },
        )
        .tool(
            Tool::without_params("test_elicitation_sep1330_enums").description("Asks for choices of every enum kind."),
            |_: Value, cx: Context| async move {
                let request = elicitation(json!({
                    "message": "Choose your options",
                    "requestedSchema": {"type": "object", "properties": {
                        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                        "titledSingle": {"type": "string", "oneOf": [
                            {"const": "value1", "title": "First Option"},
                            {"const": "value2", "title": "Second Option"},
                            {"const": "value3", "title": "Third Option"}]},
                        "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                            "enumNames": ["Option One", "Option Two", "Option Three"]},
                        "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                        "titledMulti": {"type": "array", "items": {"anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"}]}}
                    }}
                }))?;
                let answer = cx.elicit(request).await?;
                Ok::<_, InputError>(format!("Elicitation completed: {}", described(&answer)))
            },
        )
        .tool(
            Tool::without_params("test_input_required_result_elicitation").description("Asks for the user's name."),
            |_: Value, cx: Context| async move {
                let answer = cx.elicit_keyed("user_name", ask_for("What is your name?", "name")?).await?;
                Ok::<_, InputError>(format!("Hello, {}!", field(&answer, "name")))
            },
        )
        .tool(
            Tool::without_params("test_input_required_result_sampling").description("Asks the model a question."),
            |_: Value, cx: Context| async move {
                let answer = cx.sample_keyed("capital_question", question("What is the capital of France?", 100)?).await?;
                let text = answer.content.as_slice().first().and_then(|c| c.as_text()).unwrap_or_default().to_owned();
                Ok::<_, InputError>(format!("The model says: {text}"))
            },
        )
        .tool(
            Tool::without_params("test_input_required_result_list_roots").description("Asks for the client's roots."),
            |_: Value, cx: Context| async move {
                let roots = cx.roots_keyed("client_roots").await?;
                let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
                Ok::<_, InputError>(format!("Roots: {}", uris.join(", ")))
            },
        )
        .tool(
            Tool::without_params("test_input_required_result_request_state").description("Asks for a confirmation."),
            |_: Value, cx: Context| async move {
                let confirm = elicitation(json!({
                    "message": "Please confirm",
                    "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
                }))?;
                let answer = cx.elicit_keyed("confirm", confirm).await?;
                Ok::<_, InputError>(format!("state-ok: confirmed={}", field(&answer, "ok")))
            },
        )
        .tool(
            Tool::without_params("test_input_required_result_multiple_inputs").description("Asks for three things at once."),
            |_: Value, cx: Context| async move {
                let name = ask_for("What is your name?", "name")?;
                let greeting = question("Generate a greeting", 50)?;
                let (name, greeting, roots) =
                    tokio::join!(cx.elicit_keyed("user_name", name), cx.sample_keyed("greeting", greeting), cx.roots_keyed("client_roots"));
                let (name, greeting, roots) = (name?, greeting?, roots?);
                let text = greeting.content.as_slice().first().and_then(|c| c.as_text()).unwrap_or_default().to_owned();
                Ok::<_, InputError>(format!("{} / {text} / {} roots", field(&name, "name"), roots.roots.len()))
            },
        )
        .tool(
            Tool::without_params("test_input_required_result_multi_round").description("Asks two questions, one per round."),
            |_: Value, cx: Context| async move {
                let name = cx.elicit_keyed("step1", ask_for("Step 1: What is your name?", "name")?).await?;
                let color = cx.elicit_keyed("step2", ask_for("Step 2: What is your favorite color?", "color")?).await?;
                Ok::<_, InputError>(format!("{} likes {}", field(&name, "name"), field(&color, "color")))
            },
        )
        .tool(
            Tool::without_params("test_input_required_result_tampered_state").description("Asks for a confirmation; its state is sealed."),
            |_: Value, cx: Context| async move {
                let confirm = elicitation(json!({
                    "message": "Please confirm",
                    "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
                }))?;
                let answer = cx.elicit_keyed("confirm", confirm).await?;
                Ok::<_, InputError>(format!("confirmed={}", field(&answer, "ok")))
            },
        )
        .tool(
            Tool::without_params("test_input_required_result_capabilities").description("Asks only for what the client declared."),
            |_: Value, cx: Context| async move {
                if cx.client_capabilities().elicitation.is_some() {
                    let answer = cx.elicit_keyed("user_name", ask_for("What is your name?", "name")?).await?;
                    return Ok::<_, InputError>(format!("Hello, {}!", field(&answer, "name")));
                }
                let answer = cx.sample_keyed("capital_question", question("What is the capital of France?", 100)?).await?;
                let text = answer.content.as_slice().first().and_then(|c| c.as_text()).unwrap_or_default().to_owned();
                Ok(format!("The model says: {text}"))
            },
        )
        .prompt(
            Prompt::new("test_input_required_result_prompt").description("A prompt that asks for its context first."),
            |_: PromptArgs, cx: Context| async move {
                let request = ask_for("What context should the prompt use?", "context").map_err(|e| e.to_string())?;
                let answer = cx.elicit_keyed("user_context", request).await.map_err(|e| e.to_string())?;
                Ok::<_, String>(format!("Prompt with context: {}", field(&answer, "context")))
            },
        )
}
