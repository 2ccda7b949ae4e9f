//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640) as a host uses it:
//! `skills/list` up front, a skill's files only when the skill is loaded, and every file
//! checked against its listing (digest, size, frontmatter) before it is used.

use presa_client::{Client, ResultText as _};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use crate::Failure;

/// Lists the skills and loads none: nothing is read ahead of need.
pub(crate) async fn list_without_loading(client: Client) -> Result<(), Failure> {
    let skills = list(&client).await?;
    eprintln!("{} skill(s) listed, none loaded", skills.len());
    Ok(())
}

/// Lists the skills and loads the first: its `SKILL.md`, verified, then its other files. A
/// file that does not match its listing stops the loading.
pub(crate) async fn load_first_skill(client: Client) -> Result<(), Failure> {
    let skills = list(&client).await?;
    let skill = skills.first().ok_or("skills/list returned no skill")?;
    let main = skill["uri"].as_str().ok_or("a skill without uri")?;
    let files = skill["resources"].as_array().map_or(&[][..], Vec::as_slice);
    // SKILL.md first: it says whether the rest is worth reading
    let (first, rest): (Vec<&Value>, Vec<&Value>) =
        files.iter().partition(|file| file["uri"] == main);
    for file in first.into_iter().chain(rest) {
        let uri = file["uri"].as_str().ok_or("a skill file without uri")?;
        let text = client.read_resource(uri).await?.text();
        verify(file, &text).map_err(|e| format!("{uri}: {e}"))?;
        if uri == main {
            verify_frontmatter(&skill["frontmatter"], &text).map_err(|e| format!("{uri}: {e}"))?;
        }
    }
    Ok(())
}

/// `skills/list`: the skill entries.
async fn list(client: &Client) -> Result<Vec<Value>, Failure> {
    let result = client.request_raw("skills/list", json!({})).await?;
    match result.get("skills") {
        Some(Value::Array(skills)) => Ok(skills.clone()),
        _ => Err("skills/list returned no skills array".into()),
    }
}

/// Checks a file's bytes against the `digest` (`sha256:<hex>`) and `size` of its listing.
fn verify(listing: &Value, text: &str) -> Result<(), String> {
    if let Some(size) = listing["size"].as_u64()
        && text.len() as u64 != size
    {
        return Err(format!("{} bytes, listed as {size}", text.len()));
    }
    if let Some(digest) = listing["digest"].as_str() {
        let hex = digest
            .strip_prefix("sha256:")
            .ok_or_else(|| format!("unsupported digest {digest:?}"))?;
        let actual: String = Sha256::digest(text.as_bytes())
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        if !actual.eq_ignore_ascii_case(hex) {
            return Err(format!("digest sha256:{actual}, listed as {digest}"));
        }
    }
    Ok(())
}

/// Checks that the `---` frontmatter of a `SKILL.md` says what the listing says, field by field.
fn verify_frontmatter(listed: &Value, text: &str) -> Result<(), String> {
    let Some(listed) = listed.as_object() else {
        return Ok(());
    };
    let block = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.split_once("\n---"))
        .map(|(block, _)| block)
        .ok_or("no frontmatter")?;
    for (key, value) in listed {
        let expected = value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_owned);
        let found = block.lines().find_map(|line| {
            let (k, v) = line.split_once(':')?;
            (k.trim() == key).then(|| v.trim())
        });
        if found != Some(expected.as_str()) {
            return Err(format!(
                "frontmatter {key} is {found:?}, listed as {expected:?}"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const SKILL: &str = "---\nname: pdf\ndescription: Fill PDFs\n---\n\nBody\n";

    #[test]
    fn files_are_checked_against_their_listing() {
        // sha256 of the empty string
        let empty = json!({
            "size": 0,
            "digest": "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        });
        assert_eq!(verify(&empty, ""), Ok(()));
        assert!(verify(&empty, "x").is_err());
        let digest_only = json!({"digest": empty["digest"]});
        assert!(verify(&digest_only, "x").unwrap_err().contains("digest"));
    }

    #[test]
    fn frontmatter_is_compared_field_by_field() {
        let listed = json!({"name": "pdf", "description": "Fill PDFs"});
        assert_eq!(verify_frontmatter(&listed, SKILL), Ok(()));
        let other = json!({"name": "pdf", "description": "Exfiltrate credentials"});
        assert!(verify_frontmatter(&other, SKILL).is_err());
        assert!(verify_frontmatter(&listed, "Body\n").is_err());
    }
}
