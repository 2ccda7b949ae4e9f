//! What OpenTelemetry's semantic conventions for MCP name a request's span by, shared by the
//! server's and the client's spans.

/// What a request is about, as the conventions for MCP record it: the tool of `tools/call`, the
/// prompt of `prompts/get`, the resource of `resources/read`, `resources/subscribe` and
/// `resources/unsubscribe`.
///
/// ```
/// use presa_core::SpanTarget;
///
/// let target = SpanTarget::of("tools/call").unwrap();
/// assert_eq!((target.param(), target.attribute()), ("name", "gen_ai.tool.name"));
/// assert!(target.names_span());
/// assert!(!SpanTarget::of("resources/read").unwrap().names_span());
/// assert_eq!(SpanTarget::of("tools/list"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpanTarget {
    /// A tool: `gen_ai.tool.name`.
    Tool,
    /// A prompt: `gen_ai.prompt.name`.
    Prompt,
    /// A resource: `mcp.resource.uri`.
    Resource,
}

impl SpanTarget {
    /// What requests of `method` are about, if anything.
    pub fn of(method: &str) -> Option<Self> {
        match method {
            "tools/call" => Some(Self::Tool),
            "prompts/get" => Some(Self::Prompt),
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                Some(Self::Resource)
            }
            _ => None,
        }
    }

    /// The member of the params that names it (`name`, `uri`).
    pub fn param(self) -> &'static str {
        match self {
            Self::Tool | Self::Prompt => "name",
            Self::Resource => "uri",
        }
    }

    /// The span attribute that records it.
    pub fn attribute(self) -> &'static str {
        match self {
            Self::Tool => "gen_ai.tool.name",
            Self::Prompt => "gen_ai.prompt.name",
            Self::Resource => "mcp.resource.uri",
        }
    }

    /// Whether it names the span too (`{method} {target}`): a tool's or prompt's name does; a
    /// resource's URI, too varied to name spans by, does not.
    pub fn names_span(self) -> bool {
        !matches!(self, Self::Resource)
    }
}
