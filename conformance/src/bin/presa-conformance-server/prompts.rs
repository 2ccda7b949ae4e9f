//! The prompts of the runner's prompt scenarios (`prompts-*`) and the completion of
//! `completion-complete`.

use presa_core::{Prompt, PromptArgument, Role};
use presa_server::{CompletionInput, Context, Message, PromptArgs, ServerBuilder, content};

use crate::tools::RED_PIXEL_PNG;

/// What `test_prompt_with_arguments`' arguments complete to.
const SUGGESTIONS: [&str; 3] = ["test", "testValue1", "testValue2"];

/// Adds the prompts and their completions.
pub(crate) fn register(builder: ServerBuilder) -> ServerBuilder {
    builder
        .prompt(
            Prompt::new("test_simple_prompt").description("A simple prompt without arguments."),
            |_: PromptArgs, _: Context| async { "This is a simple prompt for testing." },
        )
        .prompt(
            Prompt::new("test_prompt_with_arguments")
                .description("A prompt with two required arguments.")
                .argument(
                    PromptArgument::new("arg1")
                        .description("First argument")
                        .required(true),
                )
                .argument(
                    PromptArgument::new("arg2")
                        .description("Second argument")
                        .required(true),
                ),
            |args: PromptArgs, _: Context| async move {
                // both are required: presa checked they are present
                let (arg1, arg2) = (&args["arg1"], &args["arg2"]);
                format!("Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")
            },
        )
        .prompt(
            Prompt::new("test_prompt_with_embedded_resource")
                .description("A prompt embedding the resource it is given.")
                .argument(
                    PromptArgument::new("resourceUri")
                        .description("URI of the resource to embed")
                        .required(true),
                ),
            |args: PromptArgs, _: Context| async move {
                let resource = content::embedded_text(
                    args["resourceUri"].as_str(),
                    "Embedded resource content for testing.",
                    Some("text/plain"),
                );
                vec![
                    Message::from((Role::User, resource)),
                    Message::from("Please process the embedded resource above."),
                ]
            },
        )
        .prompt(
            Prompt::new("test_prompt_with_image").description("A prompt with an image."),
            |_: PromptArgs, _: Context| async {
                vec![
                    Message::from((
                        Role::User,
                        content::image_base64(RED_PIXEL_PNG, "image/png"),
                    )),
                    Message::from("Please analyze the image above."),
                ]
            },
        )
        .complete_prompt_argument("test_prompt_with_arguments", "arg1", complete)
        .complete_prompt_argument("test_prompt_with_arguments", "arg2", complete)
}

/// The suggestions starting with what was typed.
async fn complete(input: CompletionInput, _: Context) -> Vec<&'static str> {
    SUGGESTIONS
        .into_iter()
        .filter(|s| s.starts_with(&input.value))
        .collect()
}
