//! Flow control between the client and its transport: responses are taken even while the
//! transport takes nothing from the client, so a server that stops reading until its own
//! messages are taken (as most do) never jams against a client with many calls queued.

use std::time::{Duration, Instant};

use presa_client::{Client, ClientChannel, ClientOptions, TransportEvent};
use presa_core::{
    Implementation, Message, ProtocolVersion, ServerCapabilities, ServerSession,
    ServerSessionConfig, Transmit, decode_message,
};
use serde_json::json;
use tokio::sync::mpsc;

/// More calls than the client queues (64) and the transport's channel hold together.
const CALLS: usize = 200;

/// Far longer than any step takes: a step not done by then is jammed.
const PATIENCE: Duration = Duration::from_secs(30);

fn wire(message: &Message) -> Message {
    decode_message(message.to_json().as_bytes()).unwrap()
}

/// The result of a tools/call answering `request`.
fn answer(request: &Transmit) -> TransportEvent {
    let Message::Request(request) = &request.message else {
        panic!("expected a request, got {:?}", request.message);
    };
    let id = serde_json::to_value(&request.id).unwrap();
    let response = json!({"jsonrpc": "2.0", "id": id, "result": {
        "resultType": "complete", "content": [{"type": "text", "text": "ok"}]}});
    TransportEvent::Message(decode_message(response.to_string().as_bytes()).unwrap())
}

/// A client connected over a transport that is this test: what the client sends comes out of
/// the receiver, and what the sender sends reaches it (one message in flight each way).
async fn connected() -> (
    Client,
    mpsc::Receiver<Transmit>,
    mpsc::Sender<TransportEvent>,
) {
    let (outgoing, mut sent) = mpsc::channel::<Transmit>(1);
    let (deliver, incoming) = mpsc::channel::<TransportEvent>(1);
    let options = ClientOptions::new(Implementation::new("flow", "1.0.0"))
        .protocol_version(Some(ProtocolVersion::V2026_07_28));
    let connecting = tokio::spawn(Client::connect(
        ClientChannel::new(outgoing, incoming),
        options,
    ));
    // server/discover, answered by a server session
    let capabilities: ServerCapabilities = serde_json::from_value(json!({"tools": {}})).unwrap();
    let mut server = ServerSession::new(
        ServerSessionConfig::new(Implementation::new("s", "1")).capabilities(capabilities),
    );
    let discover = sent.recv().await.unwrap();
    server.handle_message(Instant::now(), wire(&discover.message));
    let answer_to_discover = server.poll_transmit().unwrap();
    deliver
        .send(TransportEvent::Message(wire(&answer_to_discover.message)))
        .await
        .unwrap();
    let client = connecting.await.unwrap().unwrap();
    (client, sent, deliver)
}

#[tokio::test]
async fn responses_are_taken_while_the_transport_takes_nothing_from_the_client() {
    let (client, mut sent, deliver) = connected().await;
    let calls: Vec<_> = (0..CALLS)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move { client.call_tool("echo", json!({})).await })
        })
        .collect();
    // the first half of the requests, then nothing more is taken from the client until their
    // responses were taken: its queue meanwhile holds what the transport does not take
    let mut taken = Vec::new();
    for _ in 0..CALLS / 2 {
        taken.push(
            tokio::time::timeout(PATIENCE, sent.recv())
                .await
                .unwrap()
                .unwrap(),
        );
    }
    for request in &taken {
        tokio::time::timeout(PATIENCE, deliver.send(answer(request)))
            .await
            .expect("the client took no responses while its queue was full")
            .unwrap();
    }
    // then the rest
    for _ in CALLS / 2..CALLS {
        let request = tokio::time::timeout(PATIENCE, sent.recv())
            .await
            .unwrap()
            .unwrap();
        deliver.send(answer(&request)).await.unwrap();
    }
    for call in calls {
        let result = tokio::time::timeout(PATIENCE, call).await.unwrap().unwrap();
        assert!(!result.unwrap().is_error());
    }
}

#[tokio::test(start_paused = true)]
async fn a_server_flooding_requests_is_held_back_by_its_own_stream() {
    let (_client, mut sent, deliver) = connected().await;
    // the transport takes nothing from the client: each ping's answer stays in its queue, and
    // soon the client reads no more pings (the paused clock makes a blocked send time out)
    let mut delivered = 0;
    loop {
        let ping = json!({"jsonrpc": "2.0", "id": delivered, "method": "ping"});
        let ping = TransportEvent::Message(decode_message(ping.to_string().as_bytes()).unwrap());
        match tokio::time::timeout(Duration::from_secs(1), deliver.send(ping)).await {
            Ok(sent) => sent.unwrap(),
            Err(_) => break,
        }
        delivered += 1;
        assert!(delivered <= 1_000, "the client read every ping");
    }
    // its queue (64), the transport's channel and the one ping held back
    assert!((64..=70).contains(&delivered), "{delivered} pings read");
    // once the transport takes the answers, every ping read is answered, in order
    for id in 0..delivered {
        let answer = sent.recv().await.unwrap();
        let Message::Response(response) = answer.message else {
            panic!("expected an answer, got {:?}", answer.message);
        };
        assert_eq!(serde_json::to_value(response.id).unwrap(), json!(id));
    }
}
