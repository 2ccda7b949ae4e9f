//! The extension's methods: `skills/list`, `skills/get` and `resources/directory/read`.

use presa_core::skills::{
    GetSkill, GetSkillRequestParams, GetSkillResult, ListSkills, ListSkillsResult,
    ReadResourceDirectory, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult,
};
use presa_core::{CacheScope, ErrorCode, PaginatedRequestParams, paginate};

use super::SkillsHandle;
use crate::builder::ServerBuilder;
use crate::context::Context;
use crate::error::ProtocolError;

/// Serves the extension's methods on `builder`, from what `skills` holds at each request.
pub(super) fn register(
    builder: ServerBuilder,
    skills: &SkillsHandle,
    page_size: usize,
    directory_read: bool,
) -> ServerBuilder {
    let listing = skills.clone();
    let getting = skills.clone();
    let builder = builder
        .method::<ListSkills>(move |params: PaginatedRequestParams, cx: Context| {
            let catalog = listing.catalog();
            async move {
                let page = paginate(
                    catalog.len(),
                    params.cursor.as_deref(),
                    page_size,
                    catalog.generation,
                )
                .map_err(|error| ProtocolError::from(presa_core::ErrorObject::from(error)))?;
                let (range, next_cursor) = page.into_parts();
                let (ttl_ms, cache_scope) = cache_hints(&cx);
                Ok::<_, ProtocolError>(ListSkillsResult {
                    skills: catalog.page(range),
                    next_cursor,
                    ttl_ms,
                    cache_scope,
                    ..Default::default()
                })
            }
        })
        .method::<GetSkill>(move |params: GetSkillRequestParams, cx: Context| {
            let catalog = getting.catalog();
            async move {
                let Some(skill) = catalog.skill(&params.uri) else {
                    return Err(ProtocolError::new(
                        ErrorCode::INVALID_PARAMS,
                        format!("No skill is served at {}", params.uri),
                    ));
                };
                let (ttl_ms, cache_scope) = cache_hints(&cx);
                Ok(GetSkillResult {
                    result_type: None,
                    skill: skill.clone(),
                    ttl_ms,
                    cache_scope,
                    meta: None,
                })
            }
        });
    if !directory_read {
        return builder;
    }
    let browsing = skills.clone();
    builder.method::<ReadResourceDirectory>(
        move |params: ReadResourceDirectoryRequestParams, _cx: Context| {
            let catalog = browsing.catalog();
            async move {
                let Some(children) = catalog.directory(&params.uri) else {
                    return Err(ProtocolError::new(
                        ErrorCode::INVALID_PARAMS,
                        format!("{} is not a directory resource", params.uri),
                    ));
                };
                let page = paginate(
                    children.len(),
                    params.cursor.as_deref(),
                    page_size,
                    catalog.generation,
                )
                .map_err(|error| ProtocolError::from(presa_core::ErrorObject::from(error)))?;
                let (range, next_cursor) = page.into_parts();
                Ok(ReadResourceDirectoryResult {
                    resources: children.get(range).unwrap_or_default().to_vec(),
                    next_cursor,
                    ..Default::default()
                })
            }
        },
    )
}

/// The caching hints of a 2026-07-28 answer: the server's own, as its lists carry them.
fn cache_hints(cx: &Context) -> (Option<u64>, Option<CacheScope>) {
    let server = cx.server().map(crate::Server::cache_hints);
    let hints = server
        .unwrap_or_default()
        .for_era(cx.protocol_version().era());
    (hints.map(|h| h.ttl_ms), hints.map(|h| h.scope))
}
