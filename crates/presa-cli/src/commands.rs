//! The subcommands: each connects, does one thing, prints it, and closes.

use std::future::Future;
use std::io::Read as _;
use std::time::Instant;

use presa::client::{ChangeEvent, Client, SubscriptionOptions};
use presa::core::{CompletionReference, Era as Revisions, LoggingLevel, ServerCapabilities};
use serde_json::{Value, json};

use crate::args::{Command, Completing, Connect};
use crate::connect::connect;
use crate::failure::Failure;
use crate::input::loose_object;
use crate::output::{Bytes, cell, json_line, pretty, printable, table};
use crate::progress::Progress;

/// Runs `command`.
pub(crate) async fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Info(plain) => session(&plain.connect, |client| info(client, plain.json)).await,
        Command::Tools { schema, plain } => {
            session(&plain.connect, |client| tools(client, plain.json, schema)).await
        }
        Command::Call {
            tool,
            arguments,
            json,
            save,
            connect,
        } => {
            let (arguments, as_json) = call_arguments(&arguments, json)?;
            let level = connect.log_level;
            session(&connect, |client| async move {
                call(&client, &tool, arguments, as_json, save.save, level).await
            })
            .await
        }
        Command::Resources(plain) => {
            session(&plain.connect, |client| resources(client, plain.json)).await
        }
        Command::Templates(plain) => {
            session(&plain.connect, |client| templates(client, plain.json)).await
        }
        Command::Read { uri, save, plain } => {
            let level = plain.connect.log_level;
            session(&plain.connect, |client| {
                read(client, uri, plain.json, save.save, level)
            })
            .await
        }
        Command::Prompts(plain) => {
            session(&plain.connect, |client| prompts(client, plain.json)).await
        }
        Command::Prompt {
            name,
            arguments,
            plain,
        } => {
            let arguments = string_arguments(&arguments)?;
            let level = plain.connect.log_level;
            session(&plain.connect, |client| {
                prompt(client, name, arguments, plain.json, level)
            })
            .await
        }
        Command::Complete {
            kind,
            reference,
            argument,
            value,
            context,
            plain,
        } => {
            let reference = match kind {
                Completing::Prompt => CompletionReference::prompt(reference),
                Completing::Template => CompletionReference::resource(reference),
            };
            session(&plain.connect, |client| async move {
                let result = client
                    .complete_with_context(reference, argument, value, context)
                    .await?;
                if plain.json {
                    return json_line(&result);
                }
                for value in &result.completion.values {
                    println!("{value}");
                }
                if result.completion.has_more == Some(true) {
                    let total = result
                        .completion
                        .total
                        .map(|t| format!(" of {t}"))
                        .unwrap_or_default();
                    eprintln!(
                        "({} shown{total}; more exist)",
                        result.completion.values.len()
                    );
                }
                Ok(())
            })
            .await
        }
        Command::Listen { resources, plain } => {
            session(&plain.connect, |client| {
                listen(client, resources, plain.json)
            })
            .await
        }
        Command::Ping(plain) => session(&plain.connect, |client| ping(client, plain.json)).await,
        Command::Auth { command } => crate::auth::run(command).await,
        Command::Proxy(proxy) => crate::proxy::run(proxy).await,
    }
}

/// Connects, prints the server's log messages on stderr while `work` runs, and closes. Ctrl-C
/// drops the work (which cancels its requests), closes, and ends the run as interrupted.
async fn session<F, Fut>(connect_to: &Connect, work: F) -> Result<(), Failure>
where
    F: FnOnce(Client) -> Fut,
    Fut: Future<Output = Result<(), Failure>>,
{
    // one listener for the whole run: a Ctrl-C between two waits is not lost
    let interrupted = tokio::signal::ctrl_c();
    tokio::pin!(interrupted);
    let client = tokio::select! {
        client = connect(connect_to) => client?,
        _ = &mut interrupted => return Err(Failure::Interrupted),
    };
    let logs = tokio::spawn(print_logs(client.clone()));
    let outcome = tokio::select! {
        outcome = async {
            crate::connect::ask_for_logs(&client, connect_to.log_level).await;
            work(client.clone()).await
        } => outcome,
        _ = &mut interrupted => Err(Failure::Interrupted),
    };
    client.close().await;
    logs.abort();
    outcome
}

/// Prints each log message the server sends, on stderr with its level.
async fn print_logs(client: Client) {
    let mut notifications = client.notifications();
    while let Some(notification) = notifications.recv().await {
        let Some(message) = crate::output::log_message(&notification) else {
            continue;
        };
        let data = match &message.data {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let data = printable(&data);
        let level = message.level;
        Progress::suspended(|| match &message.logger {
            Some(logger) => eprintln!("[{level}] {}: {data}", printable(logger)),
            None => eprintln!("[{level}] {data}"),
        });
    }
}

async fn info(client: Client, as_json: bool) -> Result<(), Failure> {
    let info = client.info();
    if as_json {
        return json_line(&json!({
            "serverInfo": info.server_info,
            "protocolVersion": info.protocol_version,
            "capabilities": info.capabilities,
            "instructions": info.instructions,
            "supportedVersions": info.supported_versions,
        }));
    }
    match &info.server_info {
        Some(server) => {
            let title = server
                .title
                .as_deref()
                .map(|t| format!(" ({t})"))
                .unwrap_or_default();
            println!("{} {}{title}", server.name, server.version);
        }
        None => println!("(the server did not name itself)"),
    }
    println!("revision: {}", info.protocol_version);
    if info.supported_versions.len() > 1 {
        println!("speaks: {}", info.supported_versions.join(", "));
    }
    println!("offers: {}", offered(&info.capabilities).join(", "));
    if let Some(instructions) = &info.instructions {
        println!("instructions:\n{instructions}");
    }
    Ok(())
}

/// What the server's capabilities offer, in words.
fn offered(capabilities: &ServerCapabilities) -> Vec<String> {
    let value = serde_json::to_value(capabilities).unwrap_or(Value::Null);
    let Some(entries) = value.as_object() else {
        return Vec::new();
    };
    entries
        .iter()
        .map(|(name, settings)| {
            let flags: Vec<&str> = settings
                .as_object()
                .map(|settings| {
                    settings
                        .iter()
                        .filter(|(_, on)| on.as_bool() == Some(true))
                        .map(|(flag, _)| flag.as_str())
                        .collect()
                })
                .unwrap_or_default();
            if flags.is_empty() {
                name.clone()
            } else {
                format!("{name} ({})", flags.join(", "))
            }
        })
        .collect()
}

async fn tools(client: Client, as_json: bool, schema: bool) -> Result<(), Failure> {
    let tools = client.list_tools().await?;
    if as_json {
        return json_line(&json!({ "tools": tools }));
    }
    let rows: Vec<Vec<String>> = tools
        .iter()
        .map(|tool| {
            vec![
                tool.name.clone(),
                tool.title.clone().unwrap_or_default(),
                tool.description.clone().unwrap_or_default(),
            ]
        })
        .collect();
    table(&["NAME", "TITLE", "DESCRIPTION"], &rows);
    if schema {
        for tool in &tools {
            println!("\n{} input: {}", tool.name, pretty(&tool.input_schema));
            if let Some(output) = &tool.output_schema {
                println!("{} output: {}", tool.name, pretty(output));
            }
        }
    }
    Ok(())
}

/// A call's arguments and whether to print JSON: `--json` alone asks for JSON; with a value it
/// is the arguments (`-`: from stdin), and JSON is printed too.
fn call_arguments(pairs: &[String], json: Option<String>) -> Result<(Value, bool), Failure> {
    match json.as_deref() {
        None => Ok((Value::Object(loose_object(pairs)?), false)),
        Some("") => Ok((Value::Object(loose_object(pairs)?), true)),
        Some(given) if !pairs.is_empty() => Err(Failure::Usage(format!(
            "give the arguments either as NAME=VALUE or with --json, not both (--json {given})"
        ))),
        Some(given) => {
            let text = if given == "-" {
                let mut text = String::new();
                std::io::stdin()
                    .read_to_string(&mut text)
                    .map_err(|e| Failure::Usage(format!("--json -: stdin: {e}")))?;
                text
            } else {
                given.to_owned()
            };
            match serde_json::from_str::<Value>(&text) {
                Ok(object @ Value::Object(_)) => Ok((object, true)),
                Ok(_) => Err(Failure::Usage(
                    "--json: the arguments must be a JSON object".into(),
                )),
                Err(e) => Err(Failure::Usage(format!("--json: not JSON: {e}"))),
            }
        }
    }
}

async fn call(
    client: &Client,
    tool: &str,
    arguments: Value,
    as_json: bool,
    save: Option<std::path::PathBuf>,
    log_level: LoggingLevel,
) -> Result<(), Failure> {
    let progress = Progress::new();
    let shown = progress.clone();
    // checked against the tool's output schema, as a typed call is
    let result = client
        .call_tool_checked(tool, arguments)
        .log_level(log_level)
        .on_progress(move |update| shown.update(&update))
        .await;
    progress.finish();
    let result = result?;
    if as_json {
        json_line(&result)?;
    } else {
        Bytes::new(save).content(&result.content)?;
        if let Some(structured) = &result.structured_content
            && result.content.is_empty()
        {
            println!("{}", pretty(structured));
        }
    }
    if result.is_error == Some(true) {
        return Err(Failure::ToolError);
    }
    Ok(())
}

async fn resources(client: Client, as_json: bool) -> Result<(), Failure> {
    let resources = client.list_resources().await?;
    if as_json {
        return json_line(&json!({ "resources": resources }));
    }
    let rows: Vec<Vec<String>> = resources
        .iter()
        .map(|r| {
            vec![
                r.uri.clone(),
                r.name.clone(),
                r.mime_type.clone().unwrap_or_default(),
                r.description.clone().unwrap_or_default(),
            ]
        })
        .collect();
    table(&["URI", "NAME", "MIME TYPE", "DESCRIPTION"], &rows);
    Ok(())
}

async fn templates(client: Client, as_json: bool) -> Result<(), Failure> {
    let templates = client.list_resource_templates().await?;
    if as_json {
        return json_line(&json!({ "resourceTemplates": templates }));
    }
    let rows: Vec<Vec<String>> = templates
        .iter()
        .map(|t| {
            vec![
                t.uri_template.clone(),
                t.name.clone(),
                t.mime_type.clone().unwrap_or_default(),
                t.description.clone().unwrap_or_default(),
            ]
        })
        .collect();
    table(&["URI TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION"], &rows);
    Ok(())
}

async fn read(
    client: Client,
    uri: String,
    as_json: bool,
    save: Option<std::path::PathBuf>,
    log_level: LoggingLevel,
) -> Result<(), Failure> {
    let result = client.read_resource(uri).log_level(log_level).await?;
    if as_json {
        return json_line(&result);
    }
    let mut bytes = Bytes::new(save);
    for contents in &result.contents {
        bytes.contents(contents)?;
    }
    Ok(())
}

async fn prompts(client: Client, as_json: bool) -> Result<(), Failure> {
    let prompts = client.list_prompts().await?;
    if as_json {
        return json_line(&json!({ "prompts": prompts }));
    }
    let rows: Vec<Vec<String>> = prompts
        .iter()
        .map(|p| {
            let arguments: Vec<String> = p
                .arguments
                .iter()
                .flatten()
                .map(|a| {
                    if a.required == Some(true) {
                        a.name.clone()
                    } else {
                        format!("[{}]", a.name)
                    }
                })
                .collect();
            vec![
                p.name.clone(),
                arguments.join(" "),
                p.description.clone().unwrap_or_default(),
            ]
        })
        .collect();
    table(&["NAME", "ARGUMENTS", "DESCRIPTION"], &rows);
    Ok(())
}

/// A prompt's arguments: strings, as prompts take them.
fn string_arguments(pairs: &[String]) -> Result<Value, Failure> {
    pairs
        .iter()
        .map(|pair| crate::args::name_value(pair).map_err(Failure::Usage))
        .map(|pair| pair.map(|(name, value)| (name, Value::String(value))))
        .collect::<Result<serde_json::Map<String, Value>, Failure>>()
        .map(Value::Object)
}

async fn prompt(
    client: Client,
    name: String,
    arguments: Value,
    as_json: bool,
    log_level: LoggingLevel,
) -> Result<(), Failure> {
    let result = client
        .get_prompt(name, arguments)
        .log_level(log_level)
        .await?;
    if as_json {
        return json_line(&result);
    }
    if let Some(description) = &result.description {
        println!("{description}\n");
    }
    let mut bytes = Bytes::new(None);
    for message in &result.messages {
        let role = serde_json::to_value(message.role).unwrap_or(Value::Null);
        println!("{}:", cell(Some(&role)));
        bytes.content(std::slice::from_ref(&message.content))?;
    }
    Ok(())
}

async fn listen(client: Client, resources: Vec<String>, as_json: bool) -> Result<(), Failure> {
    let mut options = SubscriptionOptions::new()
        .tools_list_changed(true)
        .prompts_list_changed(true)
        .resources_list_changed(true);
    for uri in resources {
        options = options.resource(uri);
    }
    let mut changes = client.subscribe(options).await?;
    eprintln!("listening; Ctrl-C ends");
    while let Some(change) = changes.next().await {
        let (event, uri) = match &change {
            ChangeEvent::ToolsListChanged => ("tools/list_changed", None),
            ChangeEvent::PromptsListChanged => ("prompts/list_changed", None),
            ChangeEvent::ResourcesListChanged => ("resources/list_changed", None),
            ChangeEvent::ResourceUpdated { uri } => ("resources/updated", Some(uri.as_str())),
            _ => continue,
        };
        if as_json {
            json_line(&json!({ "event": event, "uri": uri }))?;
        } else {
            println!(
                "{event}{}",
                uri.map(|u| format!(" {u}")).unwrap_or_default()
            );
        }
    }
    match changes.error() {
        Some(error) => Err(error.clone().into()),
        None => Ok(()),
    }
}

async fn ping(client: Client, as_json: bool) -> Result<(), Failure> {
    let started = Instant::now();
    let method = match client.protocol_version().era() {
        Revisions::Initialize => {
            client.request_raw("ping", json!({})).await?;
            "ping"
        }
        _ => {
            client.discover().await?;
            "server/discover"
        }
    };
    let elapsed = started.elapsed();
    if as_json {
        return json_line(
            &json!({ "method": method, "milliseconds": elapsed.as_secs_f64() * 1000.0 }),
        );
    }
    println!(
        "{method}: answered in {:.1} ms",
        elapsed.as_secs_f64() * 1000.0
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn call_arguments_come_from_pairs_or_json_but_not_both() {
        let (arguments, as_json) = call_arguments(&["a=1".into()], None).unwrap();
        assert_eq!((arguments, as_json), (json!({"a": 1}), false));
        let (arguments, as_json) = call_arguments(&[], Some("{\"a\":[1]}".into())).unwrap();
        assert_eq!((arguments, as_json), (json!({"a": [1]}), true));
        assert!(call_arguments(&[], Some(String::new())).unwrap().1);
        assert!(matches!(
            call_arguments(&["a=1".into()], Some("{}".into())),
            Err(Failure::Usage(_))
        ));
        assert!(matches!(
            call_arguments(&[], Some("[1]".into())),
            Err(Failure::Usage(_))
        ));
        assert!(matches!(
            call_arguments(&[], Some("{".into())),
            Err(Failure::Usage(_))
        ));
    }

    #[test]
    fn capabilities_read_as_words() {
        let capabilities: ServerCapabilities = serde_json::from_value(json!({
            "tools": {"listChanged": true},
            "logging": {}
        }))
        .unwrap();
        assert_eq!(offered(&capabilities), ["logging", "tools (listChanged)"]);
    }
}
