//! What a command prints: words and tables for people, exact JSON for scripts.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use presa::core::{ContentBlock, ResourceContents};
use serde::Serialize;
use serde_json::Value;

use crate::failure::Failure;

/// `text` without the control characters a server could use to drive the terminal (escape
/// sequences, carriage returns), keeping line breaks and tabs: what presa shows of a server's
/// words on a terminal.
pub(crate) fn printable(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .collect()
}

/// A server's text as printed on stdout: as it is into a pipe or a file, [`printable`] on a
/// terminal.
fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    use std::io::IsTerminal as _;
    if std::io::stdout().is_terminal() {
        std::borrow::Cow::Owned(printable(text))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// The params of a log message (`notifications/message`); `None` for any other notification,
/// or params that do not read.
pub(crate) fn log_message(
    notification: &presa::core::Notification,
) -> Option<presa::core::LoggingMessageNotificationParams> {
    if notification.method != "notifications/message" {
        return None;
    }
    serde_json::from_str(notification.params.as_deref()?.get()).ok()
}

/// Prints `value` as one line of JSON.
pub(crate) fn json_line(value: &impl Serialize) -> Result<(), Failure> {
    let line = serde_json::to_string(value)
        .map_err(|e| Failure::Protocol(format!("the result does not serialize: {e}")))?;
    println!("{line}");
    Ok(())
}

/// Prints rows under `headers`, each column as wide as its widest cell; a cell's text stops at
/// its first line, a column empty in every row but the first is left out, and the last column
/// is not padded.
pub(crate) fn table(headers: &[&str], rows: &[Vec<String>]) {
    let first_line = |cell: &str| printable(cell.lines().next().unwrap_or_default());
    let shown: Vec<usize> = (0..headers.len())
        .filter(|&i| {
            i == 0
                || rows
                    .iter()
                    .any(|row| row.get(i).is_some_and(|c| !c.is_empty()))
        })
        .collect();
    let headers: Vec<&str> = shown.iter().map(|&i| headers[i]).collect();
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            shown
                .iter()
                .map(|&i| first_line(row.get(i).map_or("", String::as_str)))
                .collect()
        })
        .collect();
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut out = String::new();
        for (i, (cell, width)) in cells.zip(&widths).enumerate() {
            if i + 1 == headers.len() {
                out.push_str(cell);
            } else {
                out.push_str(&format!("{cell:<width$}  "));
            }
        }
        out.trim_end().to_owned()
    };
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{}", line(&mut headers.iter().copied()));
    for row in &rows {
        let _ = writeln!(stdout, "{}", line(&mut row.iter().map(String::as_str)));
    }
}

/// `value` as indented JSON.
pub(crate) fn pretty(value: &impl Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// Where bytes go: a summary only, or files in a folder too.
#[derive(Debug)]
pub(crate) struct Bytes {
    save: Option<PathBuf>,
    saved: usize,
}

impl Bytes {
    pub(crate) fn new(save: Option<PathBuf>) -> Self {
        Self { save, saved: 0 }
    }

    /// Prints a tool's or prompt's content blocks: text as it is, the rest summarized (and
    /// written out with `--save`).
    pub(crate) fn content(&mut self, blocks: &[ContentBlock]) -> Result<(), Failure> {
        for block in blocks {
            match block {
                ContentBlock::Text(text) => println!("{}", shown(&text.text)),
                ContentBlock::Image(image) => {
                    self.binary("image", &image.mime_type, &image.data, None)?;
                }
                ContentBlock::Audio(audio) => {
                    self.binary("audio", &audio.mime_type, &audio.data, None)?;
                }
                ContentBlock::ResourceLink(link) => {
                    let mime = link.mime_type.as_deref().unwrap_or("?");
                    let link = format!("{} {} ({mime})", link.uri, link.name);
                    println!("[link {}]", printable(&link));
                }
                ContentBlock::Resource(embedded) => self.contents(&embedded.resource)?,
                _ => println!("[{}]", serde_json::to_string(block).unwrap_or_default()),
            }
        }
        Ok(())
    }

    /// Prints a resource's contents: text as it is, a blob summarized (and written out with
    /// `--save`).
    pub(crate) fn contents(&mut self, contents: &ResourceContents) -> Result<(), Failure> {
        match contents {
            ResourceContents::Text(text) => println!("{}", shown(&text.text)),
            ResourceContents::Blob(blob) => {
                let mime = blob
                    .mime_type
                    .as_deref()
                    .unwrap_or("application/octet-stream");
                self.binary("blob", mime, &blob.blob, Some(&blob.uri))?;
            }
        }
        Ok(())
    }

    /// Summarizes base64 `data` of `kind`, writing it to the save folder if there is one.
    fn binary(
        &mut self,
        kind: &str,
        mime: &str,
        data: &str,
        uri: Option<&str>,
    ) -> Result<(), Failure> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .map_err(|_| Failure::Protocol(format!("the {kind}'s data is not base64")))?;
        let size = human_size(bytes.len());
        let Some(folder) = &self.save else {
            println!("[{kind} {mime}, {size}]");
            return Ok(());
        };
        self.saved += 1;
        let name = file_name(uri, self.saved, mime);
        let path = write_new(folder, &name, &bytes)?;
        let mime = printable(mime);
        println!("[{kind} {mime}, {size}: saved to {}]", path.display());
        Ok(())
    }
}

/// A file name for saved bytes: the URI's last part when it is a plain name (not hidden), else
/// `content-N` with the MIME type's extension.
fn file_name(uri: Option<&str>, n: usize, mime: &str) -> String {
    let from_uri = uri
        .and_then(|uri| uri.rsplit('/').next())
        .and_then(presa::core::percent_decode)
        .filter(|name| {
            !name.is_empty()
                && !name.starts_with('.')
                && !name.contains(['/', '\\', ':'])
                && !name.chars().any(char::is_control)
        });
    from_uri.unwrap_or_else(|| {
        let extension = mime
            .split_once('/')
            .map(|(_, sub)| sub.split(['+', ';']).next().unwrap_or(sub))
            .filter(|sub| !sub.is_empty() && sub.chars().all(|c| c.is_ascii_alphanumeric()))
            .unwrap_or("bin");
        format!("content-{n}.{extension}")
    })
}

/// Writes `bytes` to a new file `name` in `folder` (`name-2`, `name-3`… when taken): nothing
/// there is overwritten, and no link followed. Returns its path.
fn write_new(folder: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, Failure> {
    use std::io::Write as _;
    let failed =
        |path: &Path, e: std::io::Error| Failure::Usage(format!("--save: {}: {e}", path.display()));
    std::fs::create_dir_all(folder).map_err(|e| failed(folder, e))?;
    let (stem, extension) = match name.rsplit_once('.') {
        Some((stem, extension)) if !stem.is_empty() => (stem, Some(extension)),
        _ => (name, None),
    };
    for n in 1..=1000 {
        let candidate = match (n, extension) {
            (1, _) => name.to_owned(),
            (n, Some(extension)) => format!("{stem}-{n}.{extension}"),
            (n, None) => format!("{stem}-{n}"),
        };
        let path = folder.join(candidate);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut file) => {
                file.write_all(bytes).map_err(|e| failed(&path, e))?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(failed(&path, e)),
        }
    }
    Err(Failure::Usage(format!(
        "--save: {}: too many files named {name}",
        folder.display()
    )))
}

/// `bytes` as people read a size.
fn human_size(bytes: usize) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} bytes");
    }
    let mut size = bytes as f64 / 1024.0;
    let mut unit = 0;
    while size >= 1024.0 && unit + 1 < UNITS.len() {
        size /= 1024.0;
        unit += 1;
    }
    format!("{size:.1} {}", UNITS[unit])
}

/// A JSON value for a table cell: strings without quotes, nothing for null.
pub(crate) fn cell(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_servers_words_cannot_drive_the_terminal() {
        assert_eq!(
            printable("a\x1b[31mred\x1b[0m\r\nb\tc\x07"),
            "a[31mred[0m\nb\tc"
        );
    }

    #[test]
    fn saved_bytes_never_overwrite_a_file() {
        let folder = std::env::temp_dir().join(format!("presa-save-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&folder);
        let first = write_new(&folder, "logo.png", b"one").unwrap();
        let second = write_new(&folder, "logo.png", b"two").unwrap();
        assert_eq!(first.file_name().unwrap(), "logo.png");
        assert_eq!(second.file_name().unwrap(), "logo-2.png");
        assert_eq!(std::fs::read(&first).unwrap(), b"one");
        std::fs::remove_dir_all(&folder).unwrap();
    }

    #[test]
    fn sizes_and_file_names_read_as_people_expect() {
        assert_eq!(human_size(12), "12 bytes");
        assert_eq!(human_size(1536), "1.5 KiB");
        assert_eq!(human_size(3 * 1024 * 1024), "3.0 MiB");
        assert_eq!(
            file_name(Some("file:///a/b/logo%20x.png"), 1, "image/png"),
            "logo x.png"
        );
        assert_eq!(
            file_name(Some("file:///a/.."), 2, "image/png"),
            "content-2.png"
        );
        assert_eq!(file_name(None, 3, "image/svg+xml"), "content-3.svg");
        assert_eq!(file_name(None, 4, "weird"), "content-4.bin");
        assert_eq!(
            file_name(Some("file:///home/.bashrc"), 5, "text/plain"),
            "content-5.plain"
        );
    }
}
