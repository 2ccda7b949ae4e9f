//! Finding the era: discover, fallback to initialize, retries, pinning.

use std::time::Duration;

use presa_client::{Client, ClientError, ClientOptions, TransportError, TransportErrorKind};
use presa_core::{
    Era, ErrorCode, HandshakeError, Implementation, META_CLIENT_CAPABILITIES, META_CLIENT_INFO,
    META_PROTOCOL_VERSION, ProtocolVersion,
};
use presa_test::fake::{self, Discover, FakeConfig};

use crate::{connect_with, legacy, methods, modern};

#[tokio::test(start_paused = true)]
async fn a_modern_server_is_reached_with_discover() {
    let (client, mut fake) = modern().await;
    let info = client.info();
    assert_eq!(info.protocol_version, ProtocolVersion::V2026_07_28);
    assert_eq!(info.era(), Era::Stateless);
    let server = info.server_info.as_ref().unwrap();
    assert_eq!(
        (server.name.as_str(), server.version.as_str()),
        ("fake", "1.2.3")
    );
    assert_eq!(info.instructions.as_deref(), Some("Be nice."));
    assert!(info.capabilities.tools.is_some());
    assert_eq!(info.supported_versions[0], "2026-07-28");

    let sent = fake.drain();
    assert_eq!(methods(&sent), ["server/discover"]);
    let meta = &sent[0]["params"]["_meta"];
    assert_eq!(meta[META_PROTOCOL_VERSION], "2026-07-28");
    assert_eq!(meta[META_CLIENT_INFO]["name"], "presa-client");
    assert!(meta[META_CLIENT_CAPABILITIES].is_object());
}

#[tokio::test(start_paused = true)]
async fn a_server_without_2026_falls_back_to_initialize() {
    // the session answers discover with -32022 listing only initialize-era revisions
    let (client, mut fake) = legacy().await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(client.info().name(), Some("fake"));
    assert_eq!(client.info().instructions.as_deref(), Some("Be nice."));
    let sent = fake.drain();
    assert_eq!(
        methods(&sent),
        ["server/discover", "initialize", "notifications/initialized"]
    );
    assert_eq!(sent[1]["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(sent[1]["params"]["clientInfo"]["name"], "presa-client");
}

#[tokio::test(start_paused = true)]
async fn any_other_discover_error_falls_back_to_initialize() {
    let config = FakeConfig {
        discover: Discover::MethodNotFound,
        ..FakeConfig::legacy()
    };
    let (client, mut fake) = connect_with(config, ClientOptions::default()).await;
    assert_eq!(client.info().era(), Era::Initialize);
    assert_eq!(
        methods(&fake.drain()),
        ["server/discover", "initialize", "notifications/initialized"]
    );
}

#[tokio::test(start_paused = true)]
async fn a_transport_refusing_discover_falls_back_to_initialize() {
    let config = FakeConfig {
        discover: Discover::HttpError,
        ..FakeConfig::legacy()
    };
    let (client, mut fake) = connect_with(config, ClientOptions::default()).await;
    assert_eq!(client.info().era(), Era::Initialize);
    let sent = fake.drain();
    assert_eq!(
        methods(&sent),
        ["server/discover", "initialize", "notifications/initialized"],
        "no cancellation for a request the transport failed"
    );
}

#[tokio::test(start_paused = true)]
async fn a_silent_server_falls_back_after_the_probe_timeout() {
    let config = FakeConfig {
        discover: Discover::Silent,
        ..FakeConfig::legacy()
    };
    let options = ClientOptions::default().probe_timeout(Duration::from_secs(2));
    let (client, mut fake) = connect_with(config, options).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    let sent = fake.drain();
    assert_eq!(methods(&sent)[0], "server/discover");
    assert!(
        methods(&sent).contains(&"initialize".to_owned()),
        "{sent:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn unsupported_protocol_version_is_retried_not_fallen_back_from() {
    let config = FakeConfig {
        discover: Discover::UnsupportedOnce,
        ..FakeConfig::default()
    };
    let (client, mut fake) = connect_with(config, ClientOptions::default()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    let sent = fake.drain();
    assert_eq!(methods(&sent), ["server/discover", "server/discover"]);
    assert_ne!(sent[0]["id"], sent[1]["id"], "a retry is a new request");
    for m in &sent {
        assert_eq!(m["params"]["_meta"][META_PROTOCOL_VERSION], "2026-07-28");
    }
}

#[tokio::test(start_paused = true)]
async fn pinning_an_initialize_era_revision_skips_the_probe() {
    let options = ClientOptions::default().protocol_version(Some(ProtocolVersion::V2025_06_18));
    let (client, mut fake) = connect_with(FakeConfig::default(), options).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_06_18);
    let sent = fake.drain();
    assert_eq!(methods(&sent), ["initialize", "notifications/initialized"]);
    assert_eq!(sent[0]["params"]["protocolVersion"], "2025-06-18");
}

#[tokio::test(start_paused = true)]
async fn pinning_2026_does_not_fall_back() {
    let options = ClientOptions::default().protocol_version(Some(ProtocolVersion::V2026_07_28));
    let (client, _fake) = connect_with(FakeConfig::default(), options.clone()).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);

    let config = FakeConfig {
        discover: Discover::MethodNotFound,
        ..FakeConfig::legacy()
    };
    let (channel, _fake) = fake::spawn(config);
    let error = Client::connect(channel, options).await.unwrap_err();
    assert!(
        matches!(&error, ClientError::Handshake(HandshakeError::Rejected(e)) if e.code == ErrorCode::METHOD_NOT_FOUND),
        "{error:?}"
    );
    assert_eq!(error.code(), Some(ErrorCode::METHOD_NOT_FOUND));
}

#[tokio::test(start_paused = true)]
async fn the_client_info_is_the_one_configured() {
    let options = ClientOptions::new(Implementation::new("my-app", "9.9.9"));
    let (_client, mut fake) = connect_with(FakeConfig::legacy(), options).await;
    let sent = fake.drain();
    let initialize = sent.iter().find(|m| m["method"] == "initialize").unwrap();
    assert_eq!(initialize["params"]["clientInfo"]["name"], "my-app");
    assert_eq!(initialize["params"]["clientInfo"]["version"], "9.9.9");
}

#[tokio::test(start_paused = true)]
async fn a_transport_closing_during_connect_fails_it_with_the_transport_error() {
    let config = FakeConfig {
        discover: Discover::Silent,
        ..FakeConfig::default()
    };
    let (channel, fake) = fake::spawn(config);
    fake.close(Some(TransportError::new(
        TransportErrorKind::Closed,
        "server exited with status 3",
    )));
    let error = Client::connect(channel, ClientOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ClientError::Transport(e) if e.message() == "server exited with status 3"),
        "{error:?}"
    );
}
