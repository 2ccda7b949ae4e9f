//! An error with its causes on one line: for a log line, or a program's last words.

use std::error::Error;
use std::fmt;

/// `error: cause: cause's cause`. presa's errors say only their own part in `Display` and
/// hand their cause out as [`source`](Error::source), so a report that walks the chain says
/// each thing once.
///
/// ```
/// use presa_core::ErrorReport;
///
/// let error = std::io::Error::other("connection reset");
/// assert_eq!(ErrorReport(&error).to_string(), "connection reset");
/// ```
pub struct ErrorReport<'a>(pub &'a (dyn Error + 'static));

impl fmt::Debug for ErrorReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ErrorReport").field(&self.0).finish()
    }
}

impl fmt::Display for ErrorReport<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)?;
        let mut source = self.0.source();
        while let Some(error) = source {
            write!(f, ": {error}")?;
            source = error.source();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Outer(std::io::Error);

    impl fmt::Display for Outer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("saving failed")
        }
    }

    impl Error for Outer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_report_names_every_cause_once_in_order() {
        let error = Outer(std::io::Error::other("disk full"));
        assert_eq!(ErrorReport(&error).to_string(), "saving failed: disk full");
        let alone = std::io::Error::other("connection reset");
        assert_eq!(ErrorReport(&alone).to_string(), "connection reset");
    }
}
