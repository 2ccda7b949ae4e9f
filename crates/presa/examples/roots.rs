//! Roots: a tool asks the client which folders the user opened (its roots) and works within
//! them; the client's handler lists them.
//!
//! ```sh
//! cargo run -p presa --example roots
//! ```
//!
//! Prints:
//!
//! ```text
//! the server asks for the roots
//! searching file:///home/me/app (app), file:///home/me/docs (docs)
//! ```

use presa::client::{Client, ClientOptions, ResultText};
use presa::core::{ListRootsResult, Root};
use presa::prelude::*;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("search", "1.0.0")
        .typed_tool(
            Tool::named("search").description("Search the open folders."),
            |(), cx: Context| async move {
                // a client that declared no roots capability would fail the whole request:
                // ask first when there is another way forward
                if !cx.can_list_roots() {
                    return Ok("no folders to search".to_owned());
                }
                let roots = cx.roots().await?;
                let folders: Vec<String> = roots
                    .roots
                    .iter()
                    .map(|root| {
                        format!(
                            "{} ({})",
                            root.uri,
                            root.name.as_deref().unwrap_or("unnamed")
                        )
                    })
                    .collect();
                Ok::<_, InputError>(format!("searching {}", folders.join(", ")))
            },
        )
        .build()?;

    // registering a roots handler declares the capability
    let options = ClientOptions::default().roots(|_params, _cx| async {
        println!("the server asks for the roots");
        Ok(ListRootsResult::new(vec![
            Root::new("file:///home/me/app", "app"),
            Root::new("file:///home/me/docs", "docs"),
        ]))
    });
    let client = Client::connect(presa::in_process(server), options).await?;
    println!("{}", client.call_tool("search", ()).await?.text());
    client.close().await;
    Ok(())
}
