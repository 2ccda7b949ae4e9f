//! Instance locations, kept on the stack while validating and written out only on error.

/// Where the walk is: a chain of borrowed segments from the current value up to the root.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl<'a> Path<'a> {
    pub(crate) fn key(&'a self, key: &'a str) -> Self {
        Self::Key(self, key)
    }

    pub(crate) fn index(&'a self, index: usize) -> Self {
        Self::Index(self, index)
    }

    /// The RFC 6901 pointer, except that the root is `/`.
    pub(crate) fn to_pointer(self) -> String {
        let mut segments = Vec::new();
        let mut at = self;
        loop {
            match at {
                Self::Root => break,
                Self::Key(parent, key) => {
                    segments.push(Segment::Key(key));
                    at = *parent;
                }
                Self::Index(parent, index) => {
                    segments.push(Segment::Index(index));
                    at = *parent;
                }
            }
        }
        if segments.is_empty() {
            return "/".to_owned();
        }
        let mut pointer = String::new();
        for segment in segments.iter().rev() {
            pointer.push('/');
            match segment {
                Segment::Key(key) => push_escaped(&mut pointer, key),
                Segment::Index(index) => pointer.push_str(&index.to_string()),
            }
        }
        pointer
    }
}

enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

/// Appends `segment` with `~` written `~0` and `/` written `~1`.
pub(crate) fn push_escaped(pointer: &mut String, segment: &str) {
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Joins a schema-location pointer (RFC 6901, the root is `""`) with one more segment
/// (compile time only).
pub(crate) fn join(base: &str, segment: &str) -> String {
    let mut pointer = String::with_capacity(base.len() + segment.len() + 1);
    pointer.push_str(base);
    pointer.push('/');
    push_escaped(&mut pointer, segment);
    pointer
}

/// A schema-location pointer as errors show it: the root is `/`.
pub(crate) fn display(pointer: &str) -> String {
    if pointer.is_empty() {
        "/".to_owned()
    } else {
        pointer.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_escape_and_render_root_as_slash() {
        let root = Path::Root;
        assert_eq!(root.to_pointer(), "/");
        let a = root.key("a/b~c");
        let b = a.index(3);
        let c = b.key("");
        assert_eq!(a.to_pointer(), "/a~1b~0c");
        assert_eq!(b.to_pointer(), "/a~1b~0c/3");
        assert_eq!(c.to_pointer(), "/a~1b~0c/3/");
        assert_eq!(join("", "properties"), "/properties");
        assert_eq!(join("/properties", "a/b"), "/properties/a~1b");
        assert_eq!(join("", ""), "/");
        assert_eq!(display(""), "/");
        assert_eq!(display("/a"), "/a");
    }
}
