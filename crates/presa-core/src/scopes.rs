//! OAuth scope lists.

/// Adds to `scopes` each scope of `more` it lacks, in order (empty names are skipped): how
/// presa merges OAuth scope lists everywhere (a definition's required scopes, the `scope` of a
/// challenge, the scopes presa-oauth requests on re-authorization).
///
/// ```
/// let mut scopes = vec!["mcp:read".to_owned()];
/// presa_core::merge_scopes(&mut scopes, ["mcp:write", "mcp:read", ""]);
/// assert_eq!(scopes, ["mcp:read", "mcp:write"]);
/// ```
pub fn merge_scopes<I, S>(scopes: &mut Vec<String>, more: I)
where
    I: IntoIterator<Item = S>,
    S: AsRef<str> + Into<String>,
{
    for scope in more {
        let name = scope.as_ref();
        if !name.is_empty() && !scopes.iter().any(|known| known == name) {
            scopes.push(scope.into());
        }
    }
}
