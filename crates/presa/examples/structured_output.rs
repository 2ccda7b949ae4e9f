//! Structured output: tools that return typed results, sent as `structuredContent` with a text
//! copy for models, checked against the output schema derived from the result type.
//!
//! ```sh
//! cargo run -p presa --example structured_output
//! ```
//!
//! Prints:
//!
//! ```text
//! weather output schema: {"properties":{"celsius":{"type":"number"},"sky":{"type":"string"}},"required":["celsius","sky"],"type":"object"}
//! structuredContent: {"celsius":21.5,"sky":"clear"}
//! text: {"celsius":21.5,"sky":"clear"}
//! typed: 21.5 °C, clear
//! cities (a list, sent wrapped): {"result":["Lisbon","Porto"]}
//! typed: ["Lisbon", "Porto"]
//! ```

use presa::client::{Client, ClientOptions, ResultText};
use presa::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Serialize, Deserialize, JsonSchema)]
struct Weather {
    celsius: f64,
    sky: String,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder("weather", "1.0.0")
        .typed_tool(
            Tool::named("weather").description("Today's weather."),
            |(), _cx: Context| async {
                Json(Weather {
                    celsius: 21.5,
                    sky: "clear".into(),
                })
            },
        )
        // a result that is not an object is sent as {"result": …}, and its schema says so
        .typed_tool(
            Tool::named("cities").description("Cities with a forecast."),
            |(), _cx: Context| async { Json(vec!["Lisbon".to_owned(), "Porto".to_owned()]) },
        )
        .build()?;
    let client = Client::connect(presa::in_process(server), ClientOptions::default()).await?;

    let tools = client.list_tools().await?;
    let schema = tools
        .iter()
        .find(|t| t.name == "weather")
        .and_then(|t| t.output_schema.clone());
    println!("weather output schema: {}", json!(schema));

    let result = client.call_tool("weather", ()).await?;
    println!("structuredContent: {}", json!(result.structured_content));
    println!("text: {}", result.text());
    let weather: Weather = client.call_tool_as("weather", ()).await?;
    println!("typed: {} °C, {}", weather.celsius, weather.sky);

    let result = client.call_tool("cities", ()).await?;
    println!(
        "cities (a list, sent wrapped): {}",
        json!(result.structured_content)
    );
    let cities: Vec<String> = client.call_tool_as("cities", ()).await?;
    println!("typed: {cities:?}");
    client.close().await;
    Ok(())
}
