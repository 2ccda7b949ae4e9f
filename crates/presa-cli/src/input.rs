//! Answering the server's requests for input: elicitation on the terminal or from `--answer`,
//! sampling through `--sampling-cmd`, roots from `--root`.

use std::io::IsTerminal as _;
use std::path::Path;
use std::process::Stdio;

use presa::client::{ClientOptions, InputContext};
use presa::core::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, ErrorCode,
    ErrorObject, JsonObject, ListRootsResult, Root,
};
use serde_json::Value;
use tokio::io::AsyncWriteExt as _;

use crate::args::InputOptions;
use crate::failure::Failure;
use crate::output::printable;

mod form;

/// `options` with the handlers `input` asks for: elicitation always (answered, declined or
/// asked on the terminal), sampling only with a command, roots only when some are given.
pub(crate) fn handlers(
    options: ClientOptions,
    input: &InputOptions,
) -> Result<ClientOptions, Failure> {
    let answering = Answering::of(input);
    let mut options = options.elicitation(move |params, _cx: InputContext| {
        let answering = answering.clone();
        async move { answering.answer(params).await }
    });
    if let Some(command) = input.sampling_cmd.clone() {
        options = options.sampling(move |params, _cx: InputContext| {
            let command = command.clone();
            async move { sample(&command, &params).await }
        });
    }
    if !input.roots.is_empty() {
        let roots = input
            .roots
            .iter()
            .map(|dir| root(dir))
            .collect::<Result<Vec<Root>, Failure>>()?;
        options = options.roots(move |_params, _cx: InputContext| {
            let roots = roots.clone();
            async move { Ok(ListRootsResult::new(roots)) }
        });
    }
    Ok(options)
}

/// How elicitations are answered.
#[derive(Clone, Debug)]
enum Answering {
    /// `--decline`.
    Decline,
    /// `--answer field=value…`.
    Given(Vec<(String, String)>),
    /// Asked on the terminal.
    Interactive,
    /// No terminal and nothing given: refused, saying how to answer.
    Unable,
}

impl Answering {
    fn of(input: &InputOptions) -> Self {
        if input.decline {
            Self::Decline
        } else if !input.answers.is_empty() {
            Self::Given(input.answers.clone())
        } else if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
            Self::Interactive
        } else {
            Self::Unable
        }
    }

    async fn answer(&self, params: ElicitRequestParams) -> Result<ElicitResult, ErrorObject> {
        match (self, params) {
            (Self::Decline, _) => Ok(ElicitResult::decline()),
            (Self::Given(answers), ElicitRequestParams::Form(form)) => {
                let schema = serde_json::to_value(&form.requested_schema)
                    .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
                form::from_answers(&schema, answers)
                    .map(ElicitResult::accept)
                    .map_err(|why| ErrorObject::invalid_params(format!("--answer: {why}")))
            }
            (Self::Interactive, params) => tokio::task::spawn_blocking(move || form::ask(&params))
                .await
                .map_err(|_| ErrorObject::internal_error("the form was interrupted"))?,
            (Self::Given(_) | Self::Unable, ElicitRequestParams::Url(url)) => {
                // a URL to visit is the user's to open: given answers do not consent to it
                let (url, why) = (printable(&url.url), printable(&url.message));
                eprintln!("the server asks you to visit {url} ({why}): declined");
                Ok(ElicitResult::decline())
            }
            (Self::Unable, params) => Err(ErrorObject::new(
                ErrorCode::INVALID_REQUEST,
                format!(
                    "the server asked for input ({}) and there is no terminal to ask on: \
                     answer with --answer FIELD=VALUE, or --decline",
                    params.message()
                ),
            )),
            // `ElicitRequestParams` may grow: what presa cannot show is declined
            (_, _) => Ok(ElicitResult::decline()),
        }
    }
}

/// Answers sampling with `command`: the request as JSON on its stdin, the result as JSON on
/// its stdout.
async fn sample(
    command: &str,
    params: &CreateMessageRequestParams,
) -> Result<CreateMessageResult, ErrorObject> {
    let failed = |why: String| ErrorObject::internal_error(format!("--sampling-cmd: {why}"));
    let request = serde_json::to_vec(params).map_err(|e| failed(e.to_string()))?;
    let mut child = shell(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| failed(format!("could not start {command:?}: {e}")))?;
    if let Some(mut stdin) = child.stdin.take() {
        // a command that does not read its input is its own business
        let _ = stdin.write_all(&request).await;
    }
    let output = child
        .wait_with_output()
        .await
        .map_err(|e| failed(e.to_string()))?;
    if !output.status.success() {
        return Err(failed(format!("{command:?} exited with {}", output.status)));
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|e| failed(format!("{command:?} printed no sampling result: {e}")))
}

/// `command` run by the system's shell.
fn shell(command: &str) -> tokio::process::Command {
    if cfg!(windows) {
        let mut shell = tokio::process::Command::new("cmd");
        shell.args(["/C", command]);
        shell
    } else {
        let mut shell = tokio::process::Command::new("sh");
        shell.args(["-c", command]);
        shell
    }
}

/// The root of folder `dir`: its absolute path as a `file://` URI, named by its last part.
fn root(dir: &Path) -> Result<Root, Failure> {
    let absolute = dir
        .canonicalize()
        .map_err(|e| Failure::Usage(format!("--root {}: {e}", dir.display())))?;
    let Some(text) = absolute.to_str() else {
        return Err(Failure::Usage(format!(
            "--root {}: not a UTF-8 path",
            dir.display()
        )));
    };
    let path: Vec<String> = text
        .split(std::path::MAIN_SEPARATOR)
        .map(presa::core::percent_encode)
        .collect();
    let path = path.join("/");
    let uri = if path.starts_with('/') {
        format!("file://{path}")
    } else {
        format!("file:///{path}")
    };
    let name = absolute
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or(text);
    Ok(Root::new(uri, name))
}

/// A JSON object from `pairs`, each value read as JSON when it reads, else as text.
pub(crate) fn loose_object(pairs: &[String]) -> Result<JsonObject, Failure> {
    pairs
        .iter()
        .map(|pair| {
            let (name, value) = crate::args::name_value(pair).map_err(Failure::Usage)?;
            let value = serde_json::from_str(&value).unwrap_or(Value::String(value));
            Ok((name, value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    #[test]
    fn a_root_is_the_folder_as_a_file_uri() {
        let dir = std::env::temp_dir().join("presa root test");
        std::fs::create_dir_all(&dir).unwrap();
        let root = root(&dir).unwrap();
        assert!(root.uri.starts_with("file:///"), "{}", root.uri);
        assert!(root.uri.ends_with("/presa%20root%20test"), "{}", root.uri);
        assert_eq!(root.name.as_deref(), Some("presa root test"));
        assert!(matches!(
            super::root(Path::new("/no/such/folder")),
            Err(Failure::Usage(_))
        ));
    }

    #[test]
    fn loose_values_are_json_when_they_read_as_json() {
        let object = loose_object(&[
            "n=1".into(),
            "s=hello".into(),
            "list=[1,2]".into(),
            "quoted=\"7\"".into(),
        ])
        .unwrap();
        assert_eq!(
            Value::Object(object),
            json!({"n": 1, "s": "hello", "list": [1, 2], "quoted": "7"})
        );
        assert!(loose_object(&["novalue".into()]).is_err());
    }

    #[tokio::test]
    async fn sampling_runs_the_command_with_the_request_on_its_stdin() {
        if cfg!(windows) {
            return;
        }
        let params: CreateMessageRequestParams = serde_json::from_value(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
            "maxTokens": 5
        }))
        .unwrap();
        // the command answers with the request's own text, so the request reached it
        let echo = r#"read -r line; text=$(printf '%s' "$line" | sed 's/.*"text":"\([^"]*\)".*/\1/'); printf '{"role":"assistant","content":{"type":"text","text":"%s"},"model":"echo"}' "$text""#;
        let result = sample(echo, &params).await.unwrap();
        assert_eq!(result.model, "echo");
        assert_eq!(serde_json::to_value(&result.content).unwrap()["text"], "hi");
        let failed = sample("exit 3", &params).await.unwrap_err();
        assert!(failed.message.contains("exited"), "{}", failed.message);
        let garbled = sample("echo nope", &params).await.unwrap_err();
        assert!(
            garbled.message.contains("no sampling result"),
            "{}",
            garbled.message
        );
    }
}
