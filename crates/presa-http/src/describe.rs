//! How presa's HTTP transport words an error with its causes.

/// An error with its sources, `a: b: c`, without repeating a source already quoted: how presa's
/// HTTP transport (and presa-oauth) words a failed exchange.
///
/// ```
/// let error = std::io::Error::other("connection reset");
/// assert_eq!(presa_http::describe_error(&error), "connection reset");
/// ```
pub fn describe_error(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let part = e.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = e.source();
    }
    text
}
