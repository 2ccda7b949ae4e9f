//! Elicitation: tools that ask the user, through the client, for a form (a Rust type) and to
//! visit a URL (a sign-in elsewhere); the client's handler answers both.
//!
//! ```sh
//! cargo run -p presa --example elicitation
//! ```
//!
//! Prints:
//!
//! ```text
//! form "Your order?" with fields ["cups","milk"]
//! order: 2 cups, milk: true
//! visit https://example.com/login: Sign in to the roastery
//! connect: signed in
//! ```

use presa::client::{Client, ClientOptions, InputContext, ResultText};
use presa::core::{ElicitRequestParams, ElicitRequestUrlParams, ElicitResult, ErrorObject};
use presa::prelude::*;
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
struct Order {
    /// How many cups.
    cups: u8,
    /// With milk?
    milk: bool,
}

/// The client's elicitation handler: the user fills the form, or visits the page.
async fn the_user(
    params: ElicitRequestParams,
    _cx: InputContext,
) -> Result<ElicitResult, ErrorObject> {
    Ok(match params {
        ElicitRequestParams::Form(form) => {
            let fields: Vec<&String> = form.requested_schema.properties.keys().collect();
            println!("form {:?} with fields {}", form.message, json!(fields));
            let answer = json!({"cups": 2, "milk": true});
            ElicitResult::accept(answer.as_object().cloned().unwrap_or_default())
        }
        ElicitRequestParams::Url(visit) => {
            println!("visit {}: {}", visit.url, visit.message);
            ElicitResult::accept_url()
        }
        // a mode a later revision adds
        _ => ElicitResult::decline(),
    })
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("cafe", "1.0.0")
        .elicitation_form::<Order>()
        .typed_tool("order", |(), cx: Context| async move {
            Ok::<_, InputError>(match cx.elicit_as::<Order>("Your order?").await? {
                Elicitation::Accepted(order) => {
                    format!("{} cups, milk: {}", order.cups, order.milk)
                }
                Elicitation::Declined | Elicitation::Cancelled => "no order".to_owned(),
            })
        })
        .typed_tool("connect", |(), cx: Context| async move {
            let visit =
                ElicitRequestUrlParams::new("Sign in to the roastery", "https://example.com/login");
            let accepted = cx.elicit(visit.into()).await?.action == ElicitAction::Accept;
            Ok::<_, InputError>(if accepted {
                "signed in"
            } else {
                "not signed in"
            })
        })
        .build()?;

    let options = ClientOptions::default()
        .url_elicitation(true)
        .elicitation(the_user);
    let client = Client::connect(presa::in_process(server), options).await?;
    println!("order: {}", client.call_tool("order", ()).await?.text());
    println!("connect: {}", client.call_tool("connect", ()).await?.text());
    client.close().await;
    Ok(())
}
