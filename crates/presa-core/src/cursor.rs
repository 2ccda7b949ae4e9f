//! Pagination cursors and the page arithmetic of list results: see [`paginate`].

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::ErrorObject;

/// The page size a server uses unless configured otherwise.
///
/// The seed design names no default (its example configures 10); 100 keeps pages of typical
/// servers whole while bounding the size of one response.
pub const DEFAULT_PAGE_SIZE: usize = 100;

/// The format version, first byte of every encoded cursor.
const FORMAT: u8 = 1;

/// A position in a paginated list, tied to one generation of the server's definitions.
///
/// On the wire it is `base64url(1 || varint(generation) || varint(offset))`, unpadded: a few
/// characters, URL- and header-safe, never empty. Decoding is strict: only the exact encoding
/// of some cursor decodes (no padding, no trailing bits, no overlong varints, nothing after).
///
/// ```
/// use presa_core::Cursor;
///
/// let cursor = Cursor::new(3, 200);
/// let text = cursor.encode();
/// assert_eq!(text, "AQPIAQ");
/// assert_eq!(Cursor::decode(&text), Ok(cursor));
/// assert!(Cursor::decode("").is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cursor {
    generation: u64,
    offset: u64,
}

impl Cursor {
    /// A cursor at `offset` in the list of definitions `generation`.
    pub const fn new(generation: u64, offset: u64) -> Self {
        Self { generation, offset }
    }

    /// The definitions generation the cursor was minted for.
    pub const fn generation(&self) -> u64 {
        self.generation
    }

    /// The index of the first item of the page the cursor asks for.
    pub const fn offset(&self) -> u64 {
        self.offset
    }

    /// The opaque string sent as `nextCursor`.
    pub fn encode(&self) -> String {
        let mut bytes = Vec::with_capacity(21);
        bytes.push(FORMAT);
        put_varint(&mut bytes, self.generation);
        put_varint(&mut bytes, self.offset);
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// Reads a received `cursor`, without checking it against the current definitions (see
    /// [`Cursor::check`] and [`paginate`]).
    pub fn decode(text: &str) -> Result<Self, CursorError> {
        // 1 + two 10-byte varints, base64: 28 characters at most.
        if text.is_empty() || text.len() > 28 {
            return Err(CursorError::Malformed);
        }
        let bytes = URL_SAFE_NO_PAD
            .decode(text)
            .map_err(|_| CursorError::Malformed)?;
        let (&format, mut rest) = bytes.split_first().ok_or(CursorError::Malformed)?;
        if format != FORMAT {
            return Err(CursorError::Malformed);
        }
        let generation = take_varint(&mut rest).ok_or(CursorError::Malformed)?;
        let offset = take_varint(&mut rest).ok_or(CursorError::Malformed)?;
        if !rest.is_empty() {
            return Err(CursorError::Malformed);
        }
        Ok(Self { generation, offset })
    }

    /// Checks the cursor against the current `generation` and list length `len`; returns the
    /// offset as an index. An offset equal to `len` is accepted (an empty last page).
    pub fn check(&self, generation: u64, len: usize) -> Result<usize, CursorError> {
        if self.generation != generation {
            return Err(CursorError::Stale);
        }
        match usize::try_from(self.offset) {
            Ok(offset) if offset <= len => Ok(offset),
            _ => Err(CursorError::OutOfRange),
        }
    }
}

impl fmt::Display for Cursor {
    /// The encoded form, as [`Cursor::encode`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.encode())
    }
}

impl FromStr for Cursor {
    type Err = CursorError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::decode(s)
    }
}

/// LEB128: seven bits a byte, low first, high bit set on all but the last.
fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads a canonical LEB128 `u64`: no overlong encodings, no overflow.
fn take_varint(input: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for (i, &byte) in input.iter().enumerate() {
        let shift = 7 * u32::try_from(i).ok()?;
        let bits = u64::from(byte & 0x7f);
        if shift >= 64 || (shift == 63 && bits > 1) {
            return None;
        }
        value |= bits << shift;
        if byte & 0x80 == 0 {
            // A last byte of zero after others would be an overlong encoding.
            if byte == 0 && i > 0 {
                return None;
            }
            *input = input.get(i + 1..)?;
            return Some(value);
        }
    }
    None
}

/// One page of a list: which items, and the cursor of the next page if there is one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    range: Range<usize>,
    next_cursor: Option<String>,
}

impl Page {
    /// The indices of the page's items in the list.
    pub fn range(&self) -> Range<usize> {
        self.range.clone()
    }

    /// The page's items, given the list the page was computed for.
    ///
    /// A list of another length gives the overlap (possibly empty) rather than panicking.
    pub fn items<'a, T>(&self, list: &'a [T]) -> &'a [T] {
        let end = self.range.end.min(list.len());
        let start = self.range.start.min(end);
        list.get(start..end).unwrap_or_default()
    }

    /// The result's `nextCursor`: `None` on the last page, where the member is left out.
    pub fn next_cursor(&self) -> Option<&str> {
        self.next_cursor.as_deref()
    }

    /// The page's range and next cursor, by value.
    pub fn into_parts(self) -> (Range<usize>, Option<String>) {
        (self.range, self.next_cursor)
    }
}

/// Computes the page a list request asks for (<https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/pagination>).
///
/// `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list` are paginated:
/// the request carries an opaque `cursor` (absent on the first call), the result a `nextCursor`
/// when more follows. A presa server's cursor carries the *generation* of its definitions (a
/// counter bumped on every change) and a position, so a cursor minted before a tool was added
/// or removed is refused with `-32602` rather than silently skipping or repeating items.
///
/// Clients treat cursors as opaque. **Only an absent `nextCursor` ends paging: the empty string
/// is a valid cursor** that a client must send back like any other. presa's encoder never
/// produces `""`, so a presa server receiving one refuses it as a cursor it never issued.
///
/// `len` is the length of the list in the current definitions, `cursor` the request's
/// `cursor` (`None` when absent; `Some("")` is a cursor, and one presa never issues),
/// `page_size` the most items per page (0 counts as 1; see [`DEFAULT_PAGE_SIZE`]) and
/// `generation` the current definitions generation. Fails with a [`CursorError`] (`-32602`)
/// for a cursor that is malformed, minted for other definitions, or beyond the list.
///
/// ```
/// use presa_core::paginate;
///
/// let tools = ["a", "b", "c", "d", "e"];
/// let generation = 7;
/// let first = paginate(tools.len(), None, 2, generation).unwrap();
/// assert_eq!(first.items(&tools), ["a", "b"]);
///
/// let cursor = first.next_cursor().unwrap();
/// let second = paginate(tools.len(), Some(cursor), 2, generation).unwrap();
/// assert_eq!(second.items(&tools), ["c", "d"]);
///
/// let last = paginate(tools.len(), second.next_cursor(), 2, generation).unwrap();
/// assert_eq!(last.items(&tools), ["e"]);
/// assert_eq!(last.next_cursor(), None);
///
/// // The definitions changed: the old cursor is refused with -32602.
/// let error = paginate(tools.len() + 1, Some(cursor), 2, generation + 1).unwrap_err();
/// assert_eq!(presa_core::ErrorObject::from(error).code, presa_core::ErrorCode::INVALID_PARAMS);
/// ```
pub fn paginate(
    len: usize,
    cursor: Option<&str>,
    page_size: usize,
    generation: u64,
) -> Result<Page, CursorError> {
    let start = match cursor {
        None => 0,
        Some(text) => Cursor::decode(text)?.check(generation, len)?,
    };
    let end = start.saturating_add(page_size.max(1)).min(len);
    let next_cursor = (end < len).then(|| Cursor::new(generation, end as u64).encode());
    Ok(Page {
        range: start..end,
        next_cursor,
    })
}

/// A received `cursor` that cannot be honoured: answered with `-32602` Invalid params.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CursorError {
    /// Not a cursor this server issues (including the empty string).
    Malformed,
    /// Minted before the definitions changed; list again from the start.
    Stale,
    /// Points past the end of the list.
    OutOfRange,
}

impl fmt::Display for CursorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Malformed => "invalid cursor: malformed",
            Self::Stale => "invalid cursor: the list changed since it was issued, list again",
            Self::OutOfRange => "invalid cursor: past the end of the list",
        })
    }
}

impl std::error::Error for CursorError {}

impl From<CursorError> for ErrorObject {
    /// `-32602` Invalid params, the code the protocol names for a bad cursor.
    fn from(error: CursorError) -> Self {
        ErrorObject::invalid_params(error.to_string())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::ErrorCode;

    #[test]
    fn round_trip() {
        for (generation, offset) in [
            (0, 0),
            (0, 1),
            (1, 127),
            (1, 128),
            (u64::MAX, u64::MAX),
            (1 << 63, 300),
            (42, 16_384),
        ] {
            let cursor = Cursor::new(generation, offset);
            let text = cursor.encode();
            assert!(!text.is_empty());
            assert!(text.len() <= 28, "{text}");
            assert!(
                text.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            );
            assert_eq!(Cursor::decode(&text), Ok(cursor), "{text}");
            assert_eq!(text.parse::<Cursor>(), Ok(cursor));
            assert_eq!(cursor.to_string(), text);
        }
        assert_eq!(Cursor::new(0, 0).encode(), "AQAA");
    }

    #[test]
    fn malformed() {
        let b64 = |bytes: &[u8]| URL_SAFE_NO_PAD.encode(bytes);
        let cases = [
            String::new(),
            " ".into(),
            "p2.f81".into(),
            "AQAA=".into(),  // padding
            "AQCAAR".into(), // trailing bits set ("AQCAAQ" plus a stray bit)
            "AQA".into(),    // truncated
            "AQAA+".into(),  // standard alphabet
            "bogus!!".into(),
            "x".repeat(29),
            b64(&[]),
            b64(&[1]),
            b64(&[1, 0]),          // offset missing
            b64(&[2, 0, 0]),       // unknown format
            b64(&[1, 0, 0, 0]),    // trailing byte
            b64(&[1, 0x80, 0, 0]), // overlong varint
            b64(&[1, 0x80]),       // unterminated varint
            b64(&[
                1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0,
            ]), // overflow
        ];
        for text in cases {
            assert_eq!(
                Cursor::decode(&text),
                Err(CursorError::Malformed),
                "{text:?}"
            );
        }
        // The largest value is exactly representable.
        let max = b64(&[
            1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0,
        ]);
        assert_eq!(Cursor::decode(&max), Ok(Cursor::new(u64::MAX, 0)));
    }

    #[test]
    fn pages_cover_the_list_once() {
        for len in 0..12 {
            for size in 1..6 {
                let mut seen = Vec::new();
                let mut cursor: Option<String> = None;
                let mut pages = 0;
                loop {
                    let page = paginate(len, cursor.as_deref(), size, 9).unwrap();
                    assert!(page.range().len() <= size);
                    seen.extend(page.range());
                    pages += 1;
                    match page.into_parts().1 {
                        Some(next) => cursor = Some(next),
                        None => break,
                    }
                }
                assert_eq!(seen, (0..len).collect::<Vec<_>>(), "len {len} size {size}");
                assert_eq!(pages, len.div_ceil(size).max(1));
            }
        }
    }

    #[test]
    fn first_page_and_page_size() {
        let page = paginate(3, None, DEFAULT_PAGE_SIZE, 0).unwrap();
        assert_eq!(page.range(), 0..3);
        assert_eq!(page.next_cursor(), None);
        // Zero counts as one.
        let page = paginate(3, None, 0, 0).unwrap();
        assert_eq!(page.range(), 0..1);
        assert!(page.next_cursor().is_some());
        // Empty list: one empty page.
        let page = paginate(0, None, 10, 0).unwrap();
        assert_eq!(page.range(), 0..0);
        assert_eq!(page.items::<u8>(&[]), &[] as &[u8]);
        // usize::MAX: everything at once.
        assert_eq!(paginate(5, None, usize::MAX, 0).unwrap().range(), 0..5);
    }

    #[test]
    fn stale_and_out_of_range() {
        let cursor = Cursor::new(4, 2).encode();
        assert_eq!(paginate(5, Some(&cursor), 2, 5), Err(CursorError::Stale));
        assert_eq!(paginate(5, Some(&cursor), 2, 3), Err(CursorError::Stale));
        assert_eq!(
            paginate(1, Some(&cursor), 2, 4),
            Err(CursorError::OutOfRange)
        );
        // At the very end: an empty last page.
        let page = paginate(2, Some(&cursor), 2, 4).unwrap();
        assert_eq!(page.range(), 2..2);
        assert_eq!(page.next_cursor(), None);
        let huge = Cursor::new(4, u64::MAX).encode();
        assert_eq!(paginate(5, Some(&huge), 2, 4), Err(CursorError::OutOfRange));
    }

    #[test]
    fn empty_string_is_a_cursor_presa_never_issues() {
        assert_eq!(paginate(5, Some(""), 2, 0), Err(CursorError::Malformed));
    }

    #[test]
    fn items_tolerates_another_list() {
        let page = paginate(10, Some(&Cursor::new(0, 8).encode()), 5, 0).unwrap();
        assert_eq!(page.items(&[0; 10]).len(), 2);
        assert_eq!(page.items(&[0; 9]).len(), 1);
        assert_eq!(page.items(&[0; 3]).len(), 0);
    }

    #[test]
    fn error_objects() {
        for (error, message) in [
            (CursorError::Malformed, "invalid cursor: malformed"),
            (
                CursorError::Stale,
                "invalid cursor: the list changed since it was issued, list again",
            ),
            (
                CursorError::OutOfRange,
                "invalid cursor: past the end of the list",
            ),
        ] {
            let object = ErrorObject::from(error);
            assert_eq!(object.code, ErrorCode::INVALID_PARAMS);
            assert_eq!(object.message, message);
        }
    }
}
