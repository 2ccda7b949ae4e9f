//! Protocol revisions, their eras, and version negotiation in both eras.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A revision of the MCP specification that presa speaks.
///
/// Revisions are ordered by date, so `a < b` means `a` is older.
///
/// ```
/// use presa_core::{Era, ProtocolVersion};
///
/// let version: ProtocolVersion = "2025-06-18".parse().unwrap();
/// assert_eq!(version.era(), Era::Initialize);
/// assert!(version < ProtocolVersion::V2026_07_28);
/// assert_eq!(ProtocolVersion::LATEST.to_string(), "2026-07-28");
/// assert!("2027-01-15".parse::<ProtocolVersion>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// 2024-11-05: the first revision; HTTP+SSE transport.
    V2024_11_05,
    /// 2025-03-26: Streamable HTTP, OAuth, JSON-RPC batches, audio, tool annotations.
    V2025_03_26,
    /// 2025-06-18: no batches, elicitation, structured tool output, resource links.
    V2025_06_18,
    /// 2025-11-25: URL elicitation, sampling with tools, icons, experimental tasks.
    V2025_11_25,
    /// 2026-07-28: stateless; per-request `_meta`, `server/discover`, input-required results.
    V2026_07_28,
}

/// Which tasks a revision has (see [`ProtocolVersion::tasks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TasksFlavor {
    /// 2025-11-25's experimental core tasks: the `tasks` capability, a `task` param on
    /// `tools/call`, `tasks/result` and `tasks/list`.
    Experimental,
    /// The `io.modelcontextprotocol/tasks` extension (SEP-2663) of 2026-07-28.
    Extension,
}

/// The two families of revisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Era {
    /// 2024-11-05 to 2025-11-25: an `initialize` handshake opens a session.
    Initialize,
    /// 2026-07-28 on: no handshake; every request carries its version and capabilities.
    Stateless,
}

impl ProtocolVersion {
    /// Every revision, oldest first.
    pub const ALL: [Self; 5] = [
        Self::V2024_11_05,
        Self::V2025_03_26,
        Self::V2025_06_18,
        Self::V2025_11_25,
        Self::V2026_07_28,
    ];

    /// The newest revision.
    pub const LATEST: Self = Self::V2026_07_28;

    /// The newest initialize-era revision.
    pub const LATEST_INITIALIZE_ERA: Self = Self::V2025_11_25;

    /// The revision's date string, as on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    /// Which era the revision belongs to.
    pub const fn era(self) -> Era {
        match self {
            Self::V2026_07_28 => Era::Stateless,
            _ => Era::Initialize,
        }
    }

    /// Whether a frame may hold a JSON-RPC batch (only 2025-03-26).
    pub const fn allows_batches(self) -> bool {
        matches!(self, Self::V2025_03_26)
    }

    /// Whether a Streamable HTTP server's SSE streams begin with a priming event (an event id
    /// and `retry`, nothing else), so that the client can resume one the server closes early
    /// (SEP-1699): 2025-11-25 only.
    ///
    /// ```
    /// use presa_core::ProtocolVersion;
    ///
    /// assert!(ProtocolVersion::V2025_11_25.primes_streams());
    /// assert!(!ProtocolVersion::V2025_06_18.primes_streams());
    /// ```
    pub const fn primes_streams(self) -> bool {
        matches!(self, Self::V2025_11_25)
    }

    /// Whether `ping` exists (every initialize-era revision).
    pub const fn has_ping(self) -> bool {
        matches!(self.era(), Era::Initialize)
    }

    /// Which tasks the revision has: 2025-11-25 the experimental ones, 2026-07-28 the
    /// extension, the others none.
    ///
    /// ```
    /// use presa_core::{ProtocolVersion, TasksFlavor};
    ///
    /// assert_eq!(ProtocolVersion::V2025_11_25.tasks(), Some(TasksFlavor::Experimental));
    /// assert_eq!(ProtocolVersion::V2026_07_28.tasks(), Some(TasksFlavor::Extension));
    /// assert_eq!(ProtocolVersion::V2025_06_18.tasks(), None);
    /// ```
    pub const fn tasks(self) -> Option<TasksFlavor> {
        match self {
            Self::V2025_11_25 => Some(TasksFlavor::Experimental),
            _ if matches!(self.era(), Era::Stateless) => Some(TasksFlavor::Extension),
            _ => None,
        }
    }

    /// The methods of earlier revisions that this one removed: a request for one is answered
    /// `-32601` whatever the server defines. 2026-07-28 removed the session methods
    /// (`initialize`, `ping`, `logging/setLevel`, `resources/subscribe`,
    /// `resources/unsubscribe`) and the tasks methods that the tasks extension does not bring
    /// back (`tasks/result`, `tasks/list`); see
    /// <https://modelcontextprotocol.io/specification/2026-07-28/changelog>.
    ///
    /// ```
    /// use presa_core::ProtocolVersion;
    ///
    /// assert!(ProtocolVersion::V2026_07_28.removes("ping"));
    /// assert!(!ProtocolVersion::V2025_11_25.removes("ping"));
    /// assert!(!ProtocolVersion::V2026_07_28.removes("tools/call"));
    /// ```
    pub fn removes(self, method: &str) -> bool {
        const REMOVED_IN_2026_07_28: &[&str] = &[
            "initialize",
            "ping",
            "logging/setLevel",
            "resources/subscribe",
            "resources/unsubscribe",
            "tasks/result",
            "tasks/list",
        ];
        match self.era() {
            Era::Initialize => false,
            Era::Stateless => REMOVED_IN_2026_07_28.contains(&method),
        }
    }

    /// The error code for "resource not found": `-32002` before 2026-07-28, `-32602` on it.
    pub const fn resource_not_found_code(self) -> crate::ErrorCode {
        match self.era() {
            Era::Initialize => crate::ErrorCode::RESOURCE_NOT_FOUND,
            Era::Stateless => crate::ErrorCode::INVALID_PARAMS,
        }
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A version string presa does not know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownProtocolVersion(pub String);

impl fmt::Display for UnknownProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown protocol version {:?}", self.0)
    }
}

impl std::error::Error for UnknownProtocolVersion {}

impl FromStr for ProtocolVersion {
    type Err = UnknownProtocolVersion;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|v| v.as_str() == s)
            .ok_or_else(|| UnknownProtocolVersion(s.to_owned()))
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// The set of revisions one side is willing to speak, with negotiation for both eras.
///
/// ```
/// use presa_core::{ProtocolVersion, SupportedVersions};
///
/// let versions = SupportedVersions::all();
/// // initialize era: echo a supported request, else counter-offer the newest initialize-era one
/// assert_eq!(versions.negotiate_initialize("2025-06-18"), Some(ProtocolVersion::V2025_06_18));
/// assert_eq!(versions.negotiate_initialize("2099-01-01"), Some(ProtocolVersion::V2025_11_25));
/// assert_eq!(versions.negotiate_initialize("2026-07-28"), Some(ProtocolVersion::V2025_11_25));
///
/// let modern_only = SupportedVersions::new([ProtocolVersion::V2026_07_28]).unwrap();
/// assert_eq!(modern_only.negotiate_initialize("2025-11-25"), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SupportedVersions {
    /// Newest first, no duplicates, never empty.
    versions: Vec<ProtocolVersion>,
}

/// [`SupportedVersions::new`] was given no version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoSupportedVersions;

impl fmt::Display for NoSupportedVersions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("at least one protocol version must be supported")
    }
}

impl std::error::Error for NoSupportedVersions {}

impl Default for SupportedVersions {
    fn default() -> Self {
        Self::all()
    }
}

impl SupportedVersions {
    /// Every revision presa speaks.
    pub fn all() -> Self {
        Self {
            versions: ProtocolVersion::ALL.into_iter().rev().collect(),
        }
    }

    /// The given revisions (in any order, duplicates ignored).
    pub fn new(
        versions: impl IntoIterator<Item = ProtocolVersion>,
    ) -> Result<Self, NoSupportedVersions> {
        let mut versions: Vec<_> = versions.into_iter().collect();
        versions.sort_unstable_by(|a, b| b.cmp(a));
        versions.dedup();
        if versions.is_empty() {
            Err(NoSupportedVersions)
        } else {
            Ok(Self { versions })
        }
    }

    /// The revisions, newest first.
    pub fn as_slice(&self) -> &[ProtocolVersion] {
        &self.versions
    }

    /// Whether `version` is supported.
    pub fn contains(&self, version: ProtocolVersion) -> bool {
        self.versions.contains(&version)
    }

    /// The newest supported revision.
    pub fn newest(&self) -> ProtocolVersion {
        self.versions
            .first()
            .copied()
            .unwrap_or(ProtocolVersion::LATEST)
    }

    /// The newest supported revision of `era`, if any.
    pub fn newest_of(&self, era: Era) -> Option<ProtocolVersion> {
        self.versions.iter().copied().find(|v| v.era() == era)
    }

    /// Whether any revision of `era` is supported.
    pub fn supports_era(&self, era: Era) -> bool {
        self.newest_of(era).is_some()
    }

    /// The server's answer to `initialize`'s `protocolVersion`: the same revision when it is a
    /// supported initialize-era one, else the newest supported initialize-era revision (the
    /// counter-offer), or `None` when no initialize-era revision is supported.
    pub fn negotiate_initialize(&self, requested: &str) -> Option<ProtocolVersion> {
        match requested.parse::<ProtocolVersion>() {
            Ok(v) if v.era() == Era::Initialize && self.contains(v) => Some(v),
            _ => self.newest_of(Era::Initialize),
        }
    }

    /// The client's check of `initialize`'s answer: the server's choice must be a revision this
    /// side supports in the initialize era.
    pub fn accept_initialize_answer(
        &self,
        chosen: &str,
    ) -> Result<ProtocolVersion, UnknownProtocolVersion> {
        match chosen.parse::<ProtocolVersion>() {
            Ok(v) if v.era() == Era::Initialize && self.contains(v) => Ok(v),
            _ => Err(UnknownProtocolVersion(chosen.to_owned())),
        }
    }

    /// The supported revisions as strings, newest first, as `server/discover` lists them.
    pub fn to_strings(&self) -> Vec<String> {
        self.versions
            .iter()
            .map(|v| v.as_str().to_owned())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn revisions_parse_print_and_order() {
        for v in ProtocolVersion::ALL {
            assert_eq!(v.as_str().parse::<ProtocolVersion>().unwrap(), v);
            assert_eq!(serde_json::to_string(&v).unwrap(), format!("\"{v}\""));
            assert_eq!(
                serde_json::from_str::<ProtocolVersion>(&format!("\"{v}\"")).unwrap(),
                v
            );
        }
        assert!(ProtocolVersion::ALL.windows(2).all(|w| w[0] < w[1]));
        assert!(serde_json::from_str::<ProtocolVersion>("\"v999.0.0\"").is_err());
    }

    #[test]
    fn eras_and_revision_features() {
        let eras: Vec<_> = ProtocolVersion::ALL.iter().map(|v| v.era()).collect();
        assert_eq!(
            eras,
            [
                Era::Initialize,
                Era::Initialize,
                Era::Initialize,
                Era::Initialize,
                Era::Stateless
            ]
        );
        let batching: Vec<_> = ProtocolVersion::ALL
            .iter()
            .filter(|v| v.allows_batches())
            .collect();
        assert_eq!(batching, [&ProtocolVersion::V2025_03_26]);
        assert_eq!(
            ProtocolVersion::V2025_11_25
                .resource_not_found_code()
                .code(),
            -32002
        );
        assert_eq!(
            ProtocolVersion::V2026_07_28
                .resource_not_found_code()
                .code(),
            -32602
        );
    }

    #[test]
    fn initialize_negotiation_echoes_or_counter_offers() {
        let all = SupportedVersions::all();
        for v in ProtocolVersion::ALL
            .into_iter()
            .filter(|v| v.era() == Era::Initialize)
        {
            assert_eq!(all.negotiate_initialize(v.as_str()), Some(v));
        }
        assert_eq!(
            all.negotiate_initialize(""),
            Some(ProtocolVersion::V2025_11_25)
        );
        let old =
            SupportedVersions::new([ProtocolVersion::V2024_11_05, ProtocolVersion::V2025_03_26])
                .unwrap();
        assert_eq!(
            old.negotiate_initialize("2025-11-25"),
            Some(ProtocolVersion::V2025_03_26)
        );
        assert_eq!(
            old.accept_initialize_answer("2025-03-26"),
            Ok(ProtocolVersion::V2025_03_26)
        );
        assert!(old.accept_initialize_answer("2025-06-18").is_err());
        assert!(SupportedVersions::new([]).is_err());
    }

    #[test]
    fn supported_versions_are_newest_first_without_duplicates() {
        let v = SupportedVersions::new([
            ProtocolVersion::V2025_06_18,
            ProtocolVersion::V2026_07_28,
            ProtocolVersion::V2025_06_18,
        ])
        .unwrap();
        assert_eq!(v.to_strings(), ["2026-07-28", "2025-06-18"]);
        assert_eq!(v.newest(), ProtocolVersion::V2026_07_28);
        assert_eq!(
            v.newest_of(Era::Initialize),
            Some(ProtocolVersion::V2025_06_18)
        );
    }
}
