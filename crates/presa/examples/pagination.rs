//! Pagination: a server sends its lists in pages; a client walks them by cursor, or lets
//! `list_tools` follow the cursors to the end.
//!
//! ```sh
//! cargo run -p presa --example pagination
//! ```
//!
//! Prints:
//!
//! ```text
//! page 1: step-1, step-2 (more)
//! page 2: step-3, step-4 (more)
//! page 3: step-5 (last)
//! all at once: 5 tools
//! ```

use presa::client::{Client, ClientOptions};
use presa::prelude::*;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut builder = Server::builder("pipeline", "1.0.0").page_size(2);
    for step in 1..=5 {
        builder = builder.typed_tool(
            Tool::named(format!("step-{step}")),
            move |(), _cx: Context| async move { format!("step {step} done") },
        );
    }
    let server = builder.build()?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default()).await?;

    let (mut cursor, mut page) = (None, 1);
    loop {
        let result = client.list_tools_page(cursor).await?;
        let names: Vec<_> = result.tools.iter().map(|t| t.name.as_str()).collect();
        let more = if result.next_cursor.is_some() {
            "more"
        } else {
            "last"
        };
        println!("page {page}: {} ({more})", names.join(", "));
        match result.next_cursor {
            // cursors are opaque: send them back as they came
            Some(next) => (cursor, page) = (Some(next), page + 1),
            None => break,
        }
    }
    println!("all at once: {} tools", client.list_tools().await?.len());
    client.close().await;
    Ok(())
}
