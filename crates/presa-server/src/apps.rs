//! MCP Apps (SEP-1865), served: an app's HTML page as a `ui://` resource with its `_meta.ui`,
//! for tools that name it with [`Tool::ui`](presa_core::Tool::ui). Built on the public
//! extension API alone.

use presa_core::apps::{
    APP_MIME_TYPE, APPS_EXTENSION, UI_META, UI_SCHEME, UiCsp, UiPermissions, UiResourceMeta,
};
use presa_core::{Resource, ResourceContents};

use crate::builder::ServerBuilder;
use crate::context::Context;
use crate::error::BuildError;
use crate::extend::Extension;

/// An app's page (MCP Apps): HTML that a host which renders apps shows in a sandboxed frame,
/// for the tools that name it ([`Tool::ui`](presa_core::Tool::ui)). The page talks to the host
/// over `postMessage` and can call the server's tools through it.
///
/// Served with [`ServerBuilder::with`]: the page becomes a resource of MIME type
/// `text/html;profile=mcp-app`, its `_meta.ui` (what the frame may load and use) on the listing
/// and on the contents alike, and the server declares the `io.modelcontextprotocol/ui`
/// extension. `build()` refuses a URI that is not `ui://`.
///
/// ```
/// use presa_core::Tool;
/// use presa_server::{App, Context, Server};
///
/// let server = Server::builder("weather", "1.0.0")
///     .with(App::new("ui://weather/forecast", "<!doctype html><p>Sunny</p>").prefers_border(true))
///     .tool_sync(
///         Tool::without_params("forecast").ui("ui://weather/forecast"),
///         // what a client without apps shows
///         |_: serde_json::Value, _cx: Context| "Sunny, 21 °C",
///     )
///     .build()
///     .unwrap();
/// # let _ = server;
/// ```
#[derive(Clone, Debug)]
pub struct App {
    uri: String,
    name: String,
    description: Option<String>,
    html: String,
    meta: UiResourceMeta,
}

impl App {
    /// The page at `uri` (`ui://…`), made of `html` (a whole HTML5 document). Its resource name
    /// is the URI's last segment until [`name`](Self::name) says otherwise.
    pub fn new(uri: impl Into<String>, html: impl Into<String>) -> Self {
        let uri = uri.into();
        let name = uri
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_owned();
        Self {
            uri,
            name,
            description: None,
            html: html.into(),
            meta: UiResourceMeta::default(),
        }
    }

    /// The resource's name.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The resource's description.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The origins the page may reach (its Content Security Policy); by default none.
    pub fn csp(mut self, csp: UiCsp) -> Self {
        self.meta.csp = Some(csp);
        self
    }

    /// The browser features the page asks for.
    pub fn permissions(mut self, permissions: UiPermissions) -> Self {
        self.meta.permissions = Some(permissions);
        self
    }

    /// A dedicated origin for the frame, in the host's format.
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.meta.domain = Some(domain.into());
        self
    }

    /// Whether the host should draw a border and background around the frame.
    pub fn prefers_border(mut self, prefers_border: bool) -> Self {
        self.meta.prefers_border = Some(prefers_border);
        self
    }
}

impl Extension for App {
    fn register(self, builder: ServerBuilder) -> ServerBuilder {
        if !self.uri.starts_with(UI_SCHEME) || self.uri.len() == UI_SCHEME.len() {
            let error = BuildError::Extension {
                id: APPS_EXTENSION.to_owned(),
                reason: format!("an app's page must be a ui:// resource, not {:?}", self.uri),
            };
            return builder.refuse(error);
        }
        let mut meta = presa_core::Meta::new();
        if let Ok(ui) = serde_json::to_value(&self.meta) {
            meta.insert(UI_META.to_owned(), ui);
        }
        let mut resource = Resource::new(self.uri.clone(), self.name).mime_type(APP_MIME_TYPE);
        resource.description = self.description;
        resource.meta = Some(meta.clone());
        let mut contents = ResourceContents::text(self.uri, self.html);
        if let ResourceContents::Text(text) = &mut contents {
            text.mime_type = Some(APP_MIME_TYPE.to_owned());
            text.meta = Some(meta);
        }
        builder
            .extension(APPS_EXTENSION, serde_json::json!({}))
            .resource(resource, move |_cx: Context| {
                let contents = contents.clone();
                async move { contents }
            })
    }
}
