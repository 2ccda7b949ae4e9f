//! The keys that verify JWT signatures: read from PEM, a shared secret or a JWKS document,
//! each with the algorithms it may be used with.

use std::fmt;

use jsonwebtoken::crypto::CryptoProvider;
use jsonwebtoken::errors::Error as JwtError;
use jsonwebtoken::{Algorithm, DecodingKey, Header};
use serde_json::Value;

/// Makes sure jsonwebtoken has its crypto provider: the pure-Rust one this crate enables,
/// unless something else installed one.
pub(crate) fn install_crypto() {
    if CryptoProvider::try_get_default().is_none() {
        let _ = jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER.install_default();
    }
}

const RSA: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
];
const EC: &[Algorithm] = &[Algorithm::ES256, Algorithm::ES384];
const HMAC: &[Algorithm] = &[Algorithm::HS256, Algorithm::HS384, Algorithm::HS512];

/// A key that verifies JWT signatures, with the algorithms it may be used with and its key id.
///
/// ```
/// use presa_oauth::JwtKey;
///
/// let jwks = r#"{"keys": [{"kty": "EC", "crv": "P-256", "kid": "k1", "use": "sig",
///     "x": "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
///     "y": "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"}]}"#;
/// let keys = JwtKey::from_jwks(jwks).unwrap();
/// assert_eq!(keys.len(), 1);
/// assert_eq!(keys[0].get_kid(), Some("k1"));
/// ```
#[derive(Clone)]
pub struct JwtKey {
    kid: Option<String>,
    pub(crate) key: DecodingKey,
    algorithms: Vec<Algorithm>,
}

impl fmt::Debug for JwtKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JwtKey")
            .field("kid", &self.kid)
            .field("algorithms", &self.algorithms)
            .finish_non_exhaustive()
    }
}

/// A key could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JwtKeyError(String);

impl fmt::Display for JwtKeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid key: {}", self.0)
    }
}

impl std::error::Error for JwtKeyError {}

impl JwtKey {
    fn read(
        pem: &[u8],
        parse: fn(&[u8]) -> Result<DecodingKey, JwtError>,
        algorithms: &[Algorithm],
    ) -> Result<Self, JwtKeyError> {
        install_crypto();
        let key = parse(pem).map_err(|e| JwtKeyError(e.to_string()))?;
        Ok(Self {
            kid: None,
            key,
            algorithms: algorithms.to_vec(),
        })
    }

    /// An RSA public key in PEM (PKCS#1 or SPKI), for RS256/384/512 and PS256/384/512.
    pub fn rsa_pem(pem: &[u8]) -> Result<Self, JwtKeyError> {
        Self::read(pem, DecodingKey::from_rsa_pem, RSA)
    }

    /// An ECDSA public key (P-256 or P-384) in PEM, for ES256 and ES384.
    pub fn ec_pem(pem: &[u8]) -> Result<Self, JwtKeyError> {
        Self::read(pem, DecodingKey::from_ec_pem, EC)
    }

    /// An Ed25519 public key in PEM, for EdDSA.
    pub fn ed_pem(pem: &[u8]) -> Result<Self, JwtKeyError> {
        Self::read(pem, DecodingKey::from_ed_pem, &[Algorithm::EdDSA])
    }

    /// A shared secret, for HS256/384/512 (tokens from an issuer that shares a secret with this
    /// server; never from a public JWKS).
    pub fn hmac(secret: &[u8]) -> Result<Self, JwtKeyError> {
        Self::read(secret, DecodingKey::from_secret, HMAC)
    }

    /// The signing keys of a JWKS document (`{"keys": [...]}`). Keys for encryption
    /// (`"use": "enc"`), symmetric keys and keys of unknown types or algorithms are left out.
    pub fn from_jwks(json: &str) -> Result<Vec<Self>, JwtKeyError> {
        install_crypto();
        let document: Value =
            serde_json::from_str(json).map_err(|e| JwtKeyError(format!("not a JWKS: {e}")))?;
        let keys = document
            .get("keys")
            .and_then(Value::as_array)
            .ok_or_else(|| JwtKeyError("not a JWKS: no \"keys\" array".into()))?;
        Ok(keys.iter().filter_map(Self::from_jwk).collect())
    }

    /// One signing key of a JWKS, if usable.
    fn from_jwk(jwk: &Value) -> Option<Self> {
        if jwk
            .get("use")
            .and_then(Value::as_str)
            .is_some_and(|u| u != "sig")
        {
            return None;
        }
        let family: &[Algorithm] = match jwk.get("kty").and_then(Value::as_str)? {
            "RSA" => RSA,
            "EC" => match jwk.get("crv").and_then(Value::as_str)? {
                "P-256" => &[Algorithm::ES256],
                "P-384" => &[Algorithm::ES384],
                _ => return None,
            },
            "OKP" if jwk.get("crv").and_then(Value::as_str)? == "Ed25519" => &[Algorithm::EdDSA],
            _ => return None,
        };
        let algorithms = match jwk.get("alg") {
            None => family.to_vec(),
            Some(alg) => {
                let alg: Algorithm = alg.as_str()?.parse().ok()?;
                if !family.contains(&alg) {
                    return None;
                }
                vec![alg]
            }
        };
        let parsed: jsonwebtoken::jwk::Jwk = serde_json::from_value(jwk.clone()).ok()?;
        let key = DecodingKey::from_jwk(&parsed).ok()?;
        Some(Self {
            kid: jwk.get("kid").and_then(Value::as_str).map(str::to_owned),
            key,
            algorithms,
        })
    }

    /// This key with a key id: it then verifies only tokens whose header names that `kid` (or
    /// none).
    #[must_use]
    pub fn kid(mut self, kid: impl Into<String>) -> Self {
        self.kid = Some(kid.into());
        self
    }

    /// The key id.
    pub fn get_kid(&self) -> Option<&str> {
        self.kid.as_deref()
    }

    /// Whether this key may verify a token with `header`.
    pub(crate) fn fits(&self, header: &Header) -> bool {
        let kid = match (&header.kid, &self.kid) {
            (Some(wanted), Some(mine)) => wanted == mine,
            _ => true,
        };
        kid && self.algorithms.contains(&header.alg)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;

    use super::*;

    #[test]
    fn unusable_jwks_keys_are_left_out() {
        let jwks = json!({"keys": [
            {"kty": "oct", "k": "c2VjcmV0"},
            {"kty": "EC", "crv": "P-256", "use": "enc",
             "x": "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
             "y": "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"},
            {"kty": "EC", "crv": "P-256", "alg": "RS256",
             "x": "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
             "y": "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"},
            {"kty": "RSA", "alg": "RSA-OAEP-256", "n": "AQAB", "e": "AQAB"},
            {"kty": "EC", "crv": "P-256", "alg": "ES256", "kid": "ok",
             "x": "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4",
             "y": "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"},
        ]});
        let keys = JwtKey::from_jwks(&jwks.to_string()).unwrap();
        assert_eq!(keys.len(), 1, "{keys:?}");
        assert_eq!(keys[0].algorithms, [Algorithm::ES256]);
        assert!(JwtKey::from_jwks("{}").is_err());
    }
}
