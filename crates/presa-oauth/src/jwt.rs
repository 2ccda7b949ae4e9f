//! ES256 JSON Web Tokens: the client assertion of `private_key_jwt` (RFC 7523 §2.2) and DPoP
//! proofs (RFC 9449 §4), plus the random strings OAuth needs.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::{Signature, SigningKey};
use p256::pkcs8::DecodePrivateKey as _;
use reqwest::Url;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use crate::error::OAuthError;

/// How long a client assertion is valid.
const ASSERTION_LIFETIME: u64 = 300;

/// base64url without padding.
pub(crate) fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// `n` random bytes, base64url: state, PKCE verifiers, `jti`s.
pub(crate) fn random(n: usize) -> Result<String, OAuthError> {
    let mut bytes = vec![0; n];
    getrandom::fill(&mut bytes).map_err(|e| OAuthError::Key(format!("no randomness: {e}")))?;
    Ok(b64(&bytes))
}

/// base64url(SHA-256(text)): PKCE `S256` challenges and DPoP `ath`.
pub(crate) fn sha256_b64(text: &str) -> String {
    b64(&Sha256::digest(text.as_bytes()))
}

/// Seconds since the Unix epoch.
pub(crate) fn unix(now: SystemTime) -> u64 {
    now.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs()
}

/// A P-256 key that signs ES256 tokens.
#[derive(Clone)]
pub(crate) struct Es256Key(SigningKey);

impl std::fmt::Debug for Es256Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Es256Key(..)")
    }
}

impl Es256Key {
    /// A fresh random key.
    pub(crate) fn generate() -> Result<Self, OAuthError> {
        for _ in 0..8 {
            let mut bytes = [0u8; 32];
            getrandom::fill(&mut bytes)
                .map_err(|e| OAuthError::Key(format!("no randomness: {e}")))?;
            // out of range with probability ~2^-32: draw again
            if let Ok(key) = SigningKey::from_slice(&bytes) {
                return Ok(Self(key));
            }
        }
        Err(OAuthError::Key("could not draw a P-256 key".to_owned()))
    }

    /// A key from a PEM document: PKCS#8 (`PRIVATE KEY`) or SEC1 (`EC PRIVATE KEY`).
    pub(crate) fn from_pem(pem: &str) -> Result<Self, OAuthError> {
        if let Ok(key) = SigningKey::from_pkcs8_pem(pem) {
            return Ok(Self(key));
        }
        p256::SecretKey::from_sec1_pem(pem)
            .map(|secret| Self(SigningKey::from(secret)))
            .map_err(|_| {
                OAuthError::Key("not a P-256 private key in PKCS#8 or SEC1 PEM".to_owned())
            })
    }

    /// The private scalar, base64url: what a token store keeps so that tokens bound to this key
    /// stay usable after a restart. A secret.
    pub(crate) fn secret(&self) -> String {
        b64(&self.0.to_bytes())
    }

    /// The key whose private scalar [`secret`](Self::secret) gave.
    pub(crate) fn from_secret(secret: &str) -> Result<Self, OAuthError> {
        let unusable =
            || OAuthError::Key("a stored DPoP key is not a P-256 private key".to_owned());
        let bytes = URL_SAFE_NO_PAD.decode(secret).map_err(|_| unusable())?;
        SigningKey::from_slice(&bytes)
            .map(Self)
            .map_err(|_| unusable())
    }

    /// The public key as a JWK (RFC 7517), members in the order of RFC 7638.
    pub(crate) fn public_jwk(&self) -> Value {
        let point = self.0.verifying_key().to_sec1_point(false);
        let coordinate = |c: Option<&p256::FieldBytes>| c.map(|c| b64(c)).unwrap_or_default();
        json!({
            "crv": "P-256",
            "kty": "EC",
            "x": coordinate(point.x()),
            "y": coordinate(point.y()),
        })
    }

    /// A compact JWS of `claims` with this header (to which `alg: ES256` is added).
    pub(crate) fn sign(&self, mut header: Value, claims: &Value) -> String {
        if let Some(header) = header.as_object_mut() {
            header.insert("alg".to_owned(), json!("ES256"));
        }
        let input = format!(
            "{}.{}",
            b64(header.to_string().as_bytes()),
            b64(claims.to_string().as_bytes())
        );
        let signature: Signature = self.0.sign(input.as_bytes());
        format!("{input}.{}", b64(&signature.to_bytes()))
    }
}

/// The `private_key_jwt` client assertion: `iss` = `sub` = the client id, `aud` = the
/// authorization server's issuer.
pub(crate) fn client_assertion(
    key: &Es256Key,
    client_id: &str,
    audience: &str,
    now: SystemTime,
) -> Result<String, OAuthError> {
    let iat = unix(now);
    let claims = json!({
        "iss": client_id,
        "sub": client_id,
        "aud": audience,
        "iat": iat,
        "exp": iat + ASSERTION_LIFETIME,
        "jti": random(16)?,
    });
    Ok(key.sign(json!({"typ": "JWT"}), &claims))
}

/// A DPoP proof for one request: `htm`, `htu` (the URL without query and fragment), a fresh
/// `jti`, `iat`, and `ath` when presenting an access token, `nonce` when the server gave one.
pub(crate) fn dpop_proof(
    key: &Es256Key,
    method: &str,
    url: &str,
    access_token: Option<&str>,
    nonce: Option<&str>,
    now: SystemTime,
) -> Result<String, OAuthError> {
    let htu = match Url::parse(url) {
        Ok(mut parsed) => {
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.to_string()
        }
        Err(_) => url.to_owned(),
    };
    let mut claims = json!({
        "jti": random(16)?,
        "htm": method,
        "htu": htu,
        "iat": unix(now),
    });
    if let Some(object) = claims.as_object_mut() {
        if let Some(token) = access_token {
            object.insert("ath".to_owned(), json!(sha256_b64(token)));
        }
        if let Some(nonce) = nonce {
            object.insert("nonce".to_owned(), json!(nonce));
        }
    }
    let header = json!({"typ": "dpop+jwt", "jwk": key.public_jwk()});
    Ok(key.sign(header, &claims))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use p256::ecdsa::VerifyingKey;
    use p256::ecdsa::signature::Verifier as _;

    use super::*;

    /// A PKCS#8 P-256 key (generated for these tests).
    const PEM: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg4dtGx11Kp67e8TP7
GfTfypsFd3FL9hNK0FN+2wiPmGuhRANCAARLeCFQmoyzAExy3SkwkQ3AH+zE7yiZ
8COP7P5EA0hKx17SfBA3r6qJYZzGX2Tlg5v7gb1ENKQ+WgjKjQAOMrzB
-----END PRIVATE KEY-----";

    fn decode(part: &str) -> Value {
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
    }

    fn verify(jwt: &str, key: &Es256Key) {
        let (input, signature) = jwt.rsplit_once('.').unwrap();
        let signature = Signature::from_slice(&URL_SAFE_NO_PAD.decode(signature).unwrap()).unwrap();
        VerifyingKey::from(&key.0)
            .verify(input.as_bytes(), &signature)
            .unwrap();
    }

    #[test]
    fn pkce_challenge_of_the_rfc_7636_example() {
        // RFC 7636 appendix B
        assert_eq!(
            sha256_b64("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn a_client_assertion_verifies_with_the_pem_key() {
        let key = Es256Key::from_pem(PEM).unwrap();
        let now = UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        let jwt = client_assertion(&key, "conformance-test-client", "https://as", now).unwrap();
        verify(&jwt, &key);
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(decode(parts[0]), json!({"typ": "JWT", "alg": "ES256"}));
        let claims = decode(parts[1]);
        assert_eq!(claims["iss"], "conformance-test-client");
        assert_eq!(claims["sub"], "conformance-test-client");
        assert_eq!(claims["aud"], "https://as");
        assert_eq!(claims["iat"], 1_700_000_000);
        assert_eq!(claims["exp"], 1_700_000_300);
        assert!(claims["jti"].as_str().unwrap().len() >= 16);
    }

    #[test]
    fn a_dpop_proof_has_the_public_jwk_and_request_claims() {
        let key = Es256Key::generate().unwrap();
        let now = SystemTime::now();
        let one = dpop_proof(
            &key,
            "POST",
            "https://rs/mcp?x=1#f",
            Some("tok"),
            Some("n1"),
            now,
        )
        .unwrap();
        let two = dpop_proof(&key, "POST", "https://rs/mcp", None, None, now).unwrap();
        verify(&one, &key);
        let parts: Vec<&str> = one.split('.').collect();
        let header = decode(parts[0]);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(header["jwk"]["kty"], "EC");
        assert!(header["jwk"].get("d").is_none());
        let claims = decode(parts[1]);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://rs/mcp");
        assert_eq!(claims["ath"], sha256_b64("tok"));
        assert_eq!(claims["nonce"], "n1");
        let other = decode(two.split('.').nth(1).unwrap());
        assert_ne!(claims["jti"], other["jti"]);
        assert!(other.get("ath").is_none() && other.get("nonce").is_none());
    }

    #[test]
    fn a_bad_pem_is_a_key_error() {
        assert!(matches!(
            Es256Key::from_pem("not a key"),
            Err(OAuthError::Key(_))
        ));
    }
}
