//! Which scopes to ask for: the challenge's `scope`, else the resource's `scopes_supported`,
//! else none (MCP "Scope Selection Strategy"); on re-authorization the union with what was
//! asked before (SEP-2350); `offline_access` only where the authorization server lists it
//! (SEP-2207).

use presa_core::merge_scopes;

/// What the scope choice is made from.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ScopeInputs<'a> {
    /// Scopes configured with [`OAuthOptions::scopes`](crate::OAuthOptions::scopes).
    pub(crate) configured: Option<&'a [String]>,
    /// The challenge's `scope`.
    pub(crate) challenged: Option<&'a [String]>,
    /// The protected resource metadata's `scopes_supported`.
    pub(crate) resource_supported: Option<&'a [String]>,
    /// What the previous authorization for this server asked for.
    pub(crate) previous: &'a [String],
    /// Add `offline_access` (wanted, and listed by the authorization server).
    pub(crate) offline_access: bool,
}

/// The scopes to request; empty means the `scope` parameter is omitted.
pub(crate) fn select(inputs: ScopeInputs<'_>) -> Vec<String> {
    let mut scopes: Vec<String> = inputs.previous.to_vec();
    let base = match (inputs.configured, inputs.challenged) {
        (Some(configured), challenged) => [configured, challenged.unwrap_or_default()].concat(),
        (None, Some(challenged)) => challenged.to_vec(),
        // the resource's list only for a first authorization
        (None, None) if inputs.previous.is_empty() => {
            inputs.resource_supported.unwrap_or_default().to_vec()
        }
        (None, None) => Vec::new(),
    };
    merge_scopes(&mut scopes, base);
    if inputs.offline_access && !scopes.is_empty() {
        merge_scopes(&mut scopes, ["offline_access"]);
    }
    scopes
}

/// `scopes` contains every one of `needed`.
pub(crate) fn covers(scopes: &[String], needed: &[String]) -> bool {
    needed.iter().all(|n| scopes.contains(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(scopes: &[&str]) -> Vec<String> {
        scopes.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_challenge_then_scopes_supported_then_nothing() {
        let challenged = v(&["mcp:basic"]);
        let supported = v(&["mcp:basic", "mcp:read", "mcp:write"]);
        let pick = |challenged, supported| {
            select(ScopeInputs {
                challenged,
                resource_supported: supported,
                ..ScopeInputs::default()
            })
        };
        assert_eq!(
            pick(Some(&challenged[..]), Some(&supported[..])),
            v(&["mcp:basic"])
        );
        assert_eq!(pick(None, Some(&supported[..])), supported);
        assert_eq!(pick(None, None), Vec::<String>::new());
    }

    #[test]
    fn step_up_asks_for_the_union() {
        let previous = v(&["mcp:basic"]);
        let challenged = v(&["mcp:write"]);
        let decoy = v(&["mcp:profile"]);
        let scopes = select(ScopeInputs {
            challenged: Some(&challenged),
            resource_supported: Some(&decoy),
            previous: &previous,
            ..ScopeInputs::default()
        });
        assert_eq!(scopes, v(&["mcp:basic", "mcp:write"]));
        // the same challenge again adds nothing
        let again = select(ScopeInputs {
            challenged: Some(&challenged),
            previous: &scopes,
            ..ScopeInputs::default()
        });
        assert_eq!(again, scopes);
    }

    #[test]
    fn configured_scopes_offline_access_and_coverage() {
        let configured = v(&["files:read"]);
        let challenged = v(&["files:write"]);
        let scopes = select(ScopeInputs {
            configured: Some(&configured),
            challenged: Some(&challenged),
            offline_access: true,
            ..ScopeInputs::default()
        });
        assert_eq!(scopes, v(&["files:read", "files:write", "offline_access"]));
        // never offline_access alone: no scope stays no scope
        assert!(
            select(ScopeInputs {
                offline_access: true,
                ..ScopeInputs::default()
            })
            .is_empty()
        );
        assert!(covers(&scopes, &v(&["files:write"])));
        assert!(!covers(&scopes, &v(&["files:admin"])));
        assert!(covers(&scopes, &[]));
    }
}
