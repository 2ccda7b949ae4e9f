//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) as a host uses it, through
//! presa-client's own calls: `skills/list` up front, a skill's files only when the skill is
//! loaded, and every file checked against its listing (digest, size, frontmatter) before it is
//! used.

use presa_client::Client;

use crate::Failure;

/// Lists the skills and loads none: nothing is read ahead of need.
pub(crate) async fn list_without_loading(client: Client) -> Result<(), Failure> {
    let skills = client.skills().await?;
    eprintln!("{} skill(s) listed, none loaded", skills.len());
    Ok(())
}

/// Lists the skills and loads the first: its `SKILL.md`, verified, then its other files. A
/// file that does not match its listing stops the loading.
pub(crate) async fn load_first_skill(client: Client) -> Result<(), Failure> {
    let skills = client.skills().await?;
    let skill = skills.first().ok_or("skills/list returned no skill")?;
    let loaded = client.load_skill_entry(skill).await?;
    eprintln!("{}: {} file(s) verified", skill.uri, loaded.files.len());
    Ok(())
}
