//! Which keywords the subset refuses, and where subschemas live (the keywords it evaluates
//! are the table in keywords.rs).
//!
//! The rule: a keyword of the 2020-12 vocabularies (core, applicator, unevaluated, validation,
//! meta-data, format-annotation, content) is either evaluated, an annotation with no effect on
//! validation, or in [`UNSUPPORTED`]. So are the assertion keywords earlier drafts defined and
//! 2020-12 dropped. Any other keyword is unknown and refused ([`is_known`]), unless it is an
//! extension (`x-…`), which is an annotation.

/// The 2020-12 meta-schema, as `$schema` names it.
pub(crate) const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Keywords the subset refuses with [`SchemaError::Unsupported`](crate::SchemaError): what
/// 2020-12 defines and the subset does not evaluate, and the assertions of earlier drafts
/// (`additionalItems`, `dependencies`, `$recursiveRef`, `$recursiveAnchor`), which 2020-12
/// would ignore although their author meant them to constrain. `$id` below the root, a
/// `$schema` other than 2020-12 and a `$ref` that is not local are refused too.
pub(crate) const UNSUPPORTED: &[&str] = &[
    "unevaluatedItems",
    "unevaluatedProperties",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$recursiveRef",
    "$recursiveAnchor",
    "additionalItems",
    "dependencies",
];

/// Keywords of JSON Schema known to the subset beyond the keyword table and the subschema
/// slots: `minContains` and `maxContains` (read with `contains`), the core identifiers and the
/// annotations.
pub(crate) const NOT_EVALUATED: &[&str] = &[
    "minContains",
    "maxContains",
    "$schema",
    "$id",
    "$ref",
    "$anchor",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "format",
    "contentEncoding",
    "contentMediaType",
];

/// The drafts the subset reads, oldest first: a root `$schema` naming draft-06, draft-07 or
/// 2019-09 is read with 2020-12's semantics where that draft means the same.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Draft {
    Draft06,
    Draft07,
    Draft2019_09,
    #[default]
    Draft2020_12,
}

impl Draft {
    /// The draft a `$schema` URI names, if the subset reads it (`#` and `http` or `https`
    /// alike).
    pub(crate) fn named_by(uri: &str) -> Option<Self> {
        let uri = uri.strip_suffix('#').unwrap_or(uri);
        let uri = uri
            .strip_prefix("https://")
            .or_else(|| uri.strip_prefix("http://"))?;
        Some(match uri {
            "json-schema.org/draft-06/schema" => Self::Draft06,
            "json-schema.org/draft-07/schema" => Self::Draft07,
            "json-schema.org/draft/2019-09/schema" => Self::Draft2019_09,
            _ => return None,
        })
    }

    /// The draft that introduced `keyword`, among the keywords whose reading depends on it;
    /// draft-06 for the others.
    pub(crate) fn introducing(keyword: &str) -> Self {
        match keyword {
            "if" | "then" | "else" | "$comment" | "readOnly" | "writeOnly" | "contentEncoding"
            | "contentMediaType" => Self::Draft07,
            // `$defs` is not among them: it holds schemas only a `$ref`'s pointer leads into,
            // which every draft follows
            "$anchor" | "dependentRequired" | "dependentSchemas" | "minContains"
            | "maxContains" | "deprecated" | "contentSchema" => Self::Draft2019_09,
            "prefixItems" => Self::Draft2020_12,
            _ => Self::Draft06,
        }
    }
}

/// The annotations among the keywords a draft may lack: a draft that does not define one
/// ignores it, and so does the subset reading that draft.
pub(crate) const LATER_ANNOTATIONS: &[&str] = &[
    "$comment",
    "readOnly",
    "writeOnly",
    "contentEncoding",
    "contentMediaType",
    "deprecated",
    "contentSchema",
];

/// Whether `keyword` is one JSON Schema defines (evaluated, annotation, or refused), or an
/// extension (`x-…`); anything else is refused as unknown.
pub(crate) fn is_known(keyword: &str) -> bool {
    keyword.starts_with("x-")
        || NOT_EVALUATED.contains(&keyword)
        || UNSUPPORTED.contains(&keyword)
        || slot(keyword).is_some()
        || crate::keywords::KEYWORDS
            .iter()
            .any(|(name, _)| *name == keyword)
}

/// How a keyword holds subschemas; `bool` says whether they apply to parts of the instance
/// (items, property values or names) rather than to the instance itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// One schema (`items`, `not`, ...).
    Single(bool),
    /// An object of schemas (`properties`, `dependentSchemas`, ...).
    Map(bool),
    /// A non-empty array of schemas (`prefixItems`, `allOf`, ...).
    List(bool),
    /// `$defs` and `definitions`: schemas applied only where referenced.
    Container,
}

/// Where `keyword` holds subschemas, for the keywords the subset knows.
pub(crate) fn slot(keyword: &str) -> Option<Slot> {
    Some(match keyword {
        "items" | "contains" | "additionalProperties" | "propertyNames" => Slot::Single(true),
        "not" | "if" | "then" | "else" => Slot::Single(false),
        // an annotation, never evaluated, but a schema all the same (and a `$ref` target)
        "contentSchema" => Slot::Single(true),
        "properties" | "patternProperties" => Slot::Map(true),
        "dependentSchemas" => Slot::Map(false),
        "prefixItems" => Slot::List(true),
        "allOf" | "anyOf" | "oneOf" => Slot::List(false),
        "$defs" | "definitions" => Slot::Container,
        _ => return None,
    })
}
