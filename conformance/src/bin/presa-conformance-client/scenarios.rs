//! The scenarios: what the runner's mock server expects the client to do, one async function
//! each. [`run`] is the table.

use std::fmt::Display;

use presa_client::{Client, ResultText as _};
use presa_core::{CallToolResult, JsonObject, Tool};
use serde_json::{Value, json};

use crate::{Failure, Scenario, auth, close, skills};

/// Plays the scenario `scenario.name`.
pub(crate) async fn run(scenario: &Scenario) -> Result<(), Failure> {
    let context = &scenario.context;
    match scenario.name.as_str() {
        "initialize" => session(scenario, |_| async { Ok(()) }).await,
        "tools_call" => session(scenario, tools_call).await,
        "elicitation-sep1034-client-defaults" => session(scenario, elicitation_defaults).await,
        "sse-retry" => session(scenario, sse_retry).await,
        "request-metadata" => session(scenario, list_tools).await,
        "sep-2322-client-request-state" => session(scenario, request_state).await,
        "http-standard-headers" => session(scenario, standard_headers).await,
        "http-custom-headers" => session(scenario, |c| custom_headers(c, context)).await,
        "http-invalid-tool-headers" => session(scenario, invalid_tool_headers).await,
        "json-schema-ref-no-deref" => session(scenario, list_tools).await,
        "json-schema-2020-12-preservation" => session(scenario, schema_preservation).await,
        "sep-2640-client-no-prefetch" => session(scenario, skills::list_without_loading).await,
        "sep-2640-client-verify-digest"
        | "sep-2640-client-verify-size"
        | "sep-2640-client-verify-frontmatter" => session(scenario, skills::load_first_skill).await,
        name if name.starts_with("auth/") => auth::run(scenario).await,
        other => Err(format!("unknown scenario {other:?}").into()),
    }
}

/// Connects (the handshake, or `server/discover`, at the runner's revision), plays `play`,
/// and closes the client whatever happened.
async fn session<F, Fut>(scenario: &Scenario, play: F) -> Result<(), Failure>
where
    F: FnOnce(Client) -> Fut,
    Fut: Future<Output = Result<(), Failure>>,
{
    let client = scenario.connect().await?;
    let outcome = play(client.clone()).await;
    close(client).await;
    outcome
}

/// Lists the tools and calls `add_numbers` with two numbers.
async fn tools_call(client: Client) -> Result<(), Failure> {
    listed(&client.list_tools().await?, "add_numbers")?;
    let sum = call(&client, "add_numbers", json!({"a": 2, "b": 3})).await?;
    ensure(
        sum.text().contains('5'),
        format_args!("2 + 3 gave {:?}", sum.text()),
    )?;
    Ok(())
}

/// A tool whose server asks for a form (on the session's GET stream, initialize era), which
/// the user accepts with its defaults.
async fn elicitation_defaults(client: Client) -> Result<(), Failure> {
    listed(
        &client.list_tools().await?,
        "test_client_elicitation_defaults",
    )?;
    call(&client, "test_client_elicitation_defaults", json!({})).await?;
    Ok(())
}

/// A tool whose response stream closes early: the transport resumes it with `Last-Event-ID`
/// after the server's `retry` delay.
async fn sse_retry(client: Client) -> Result<(), Failure> {
    listed(&client.list_tools().await?, "test_reconnection")?;
    let result = call(&client, "test_reconnection", json!({})).await?;
    ensure(
        result.text().contains("completed"),
        format_args!("test_reconnection answered {:?}", result.text()),
    )?;
    Ok(())
}

/// Multi round-trip requests (2026-07-28): the input rounds run while an unrelated call is in
/// flight, state is echoed only when sent, and a result without `resultType` is complete.
async fn request_state(client: Client) -> Result<(), Failure> {
    client.list_tools().await?;
    let (echoed, unrelated) = tokio::try_join!(
        call(&client, "test_mrtr_echo_state", json!({})),
        call(&client, "test_mrtr_unrelated", json!({})),
    )?;
    let stateless = call(&client, "test_mrtr_no_state", json!({})).await?;
    let untyped = call(&client, "test_mrtr_no_result_type", json!({})).await?;
    for (result, expected) in [
        (echoed, "echo-state-ok"),
        (unrelated, "unrelated-ok"),
        (stateless, "no-state-ok"),
        (untyped, "no-result-type-test-ok"),
    ] {
        ensure(
            result.text() == expected,
            format_args!("expected {expected:?}, got {:?}", result.text()),
        )?;
    }
    Ok(())
}

/// Every kind of request that carries `Mcp-Method`/`Mcp-Name`: each tool called, each resource
/// read, each prompt got (the transport adds the headers).
async fn standard_headers(client: Client) -> Result<(), Failure> {
    for tool in client.list_tools().await? {
        call(&client, &tool.name, json!({})).await?;
    }
    for resource in client.list_resources().await? {
        client.read_resource(resource.uri).await?;
    }
    for prompt in client.list_prompts().await? {
        client.get_prompt(prompt.name, ()).await?;
    }
    Ok(())
}

/// The calls of the context's `toolCalls`, verbatim, after listing the tools (the transport
/// learns the `x-mcp-header` annotations from the listing and mirrors those arguments).
async fn custom_headers(client: Client, context: &Value) -> Result<(), Failure> {
    let calls = context["toolCalls"]
        .as_array()
        .ok_or("MCP_CONFORMANCE_CONTEXT has no toolCalls")?;
    client.list_tools().await?;
    for tool_call in calls {
        let name = tool_call["name"].as_str().ok_or("a toolCall has no name")?;
        call(&client, name, tool_call["arguments"].clone()).await?;
    }
    Ok(())
}

/// Calls every tool the client sees. The transport drops tools with invalid `x-mcp-header`
/// annotations from the listing, so only the valid one is called.
async fn invalid_tool_headers(client: Client) -> Result<(), Failure> {
    let tools = client.list_tools().await?;
    listed(&tools, "valid_tool")?;
    for tool in &tools {
        call(&client, &tool.name, example_arguments(tool)).await?;
    }
    Ok(())
}

/// Lists the tools. `request-metadata`: connecting got `-32022` and retried with a version
/// from its `supported`; every request carries the version header and `_meta`.
/// `json-schema-ref-no-deref`: nothing a schema `$ref`s is fetched.
async fn list_tools(client: Client) -> Result<(), Failure> {
    client.list_tools().await?;
    Ok(())
}

/// Sends the focal tool's `inputSchema` back exactly as received.
async fn schema_preservation(client: Client) -> Result<(), Failure> {
    let tools = client.list_tools().await?;
    let focal = listed(&tools, "json_schema_2020_12_tool")?;
    let schema = Value::Object(focal.input_schema.clone());
    call(&client, "json_schema_echo", json!({"schema": schema})).await?;
    Ok(())
}

/// Calls a tool and fails on a tool error as well as on a failed call.
async fn call(client: &Client, name: &str, arguments: Value) -> Result<CallToolResult, Failure> {
    let result = client.call_tool(name, arguments).await?;
    ensure(
        !result.is_error(),
        format_args!("tool {name} failed: {}", result.text()),
    )?;
    Ok(result)
}

/// The tool called `name`, which the listing must contain.
fn listed<'a>(tools: &'a [Tool], name: &str) -> Result<&'a Tool, Failure> {
    tools
        .iter()
        .find(|tool| tool.name == name)
        .ok_or_else(|| format!("tools/list has no {name}").into())
}

/// Arguments for a tool's required string, integer and boolean properties.
fn example_arguments(tool: &Tool) -> Value {
    let required = tool.input_schema.get("required").and_then(Value::as_array);
    let properties = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object);
    let mut arguments = JsonObject::new();
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let kind = properties.and_then(|p| p.get(name)).map(|p| &p["type"]);
        let example = match kind.and_then(Value::as_str) {
            Some("string") => json!("us-west1"),
            Some("integer") => json!(1),
            Some("boolean") => json!(true),
            _ => continue,
        };
        arguments.insert(name.to_owned(), example);
    }
    Value::Object(arguments)
}

/// Fails with `what` unless `condition` holds.
fn ensure(condition: bool, what: impl Display) -> Result<(), Failure> {
    if condition {
        Ok(())
    } else {
        Err(what.to_string().into())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn example_arguments_fill_required_primitives() {
        let tool: Tool = serde_json::from_value(json!({
            "name": "t",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "region": {"type": "string"},
                    "count": {"type": "integer"},
                    "nested": {"type": "object"},
                    "optional": {"type": "string"}
                },
                "required": ["region", "count", "nested"]
            }
        }))
        .unwrap();
        assert_eq!(
            example_arguments(&tool),
            json!({"region": "us-west1", "count": 1})
        );
    }
}
