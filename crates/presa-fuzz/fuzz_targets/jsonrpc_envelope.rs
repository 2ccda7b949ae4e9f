//! JSON-RPC envelope decoding (`presa_core::decode_packet`, `decode_packet_limited`,
//! `decode_message`): whatever the bytes, decoding returns a message or an error with an error
//! response, never panics; every message decoded re-encodes to JSON that decodes to the same
//! message and the same text; the batch limit refuses exactly the batches past it; telling a
//! message's era by its `_meta` keys alone agrees with reading `_meta` in full.
#![no_main]

use libfuzzer_sys::fuzz_target;
use presa_core::{
    Message, Packet, decode_message, decode_packet, decode_packet_limited, is_stateless_params,
    params_meta_and_shape,
};

const LIMIT: usize = 4;

fn round_trip(message: &Message) {
    // the key scan is the rule; the shape taken from a `_meta` read in full is its fast path,
    // and must agree with it
    let params = message.params();
    let (_, shaped) = params_meta_and_shape(params);
    assert_eq!(is_stateless_params(params), shaped, "{params:?}");
    let text = message.to_json();
    let again = decode_message(text.as_bytes())
        .unwrap_or_else(|e| panic!("presa's own encoding {text} does not decode: {e}"));
    assert_eq!(&again, message, "{text}");
    assert_eq!(again.to_json(), text);
}

fuzz_target!(|data: &[u8]| {
    let single = decode_message(data);
    let packet = decode_packet(data, true);
    let limited = decode_packet_limited(data, LIMIT);
    match &packet {
        Ok(Packet::Single(message)) => {
            round_trip(message);
            assert_eq!(single.as_ref().ok(), Some(message));
            assert!(matches!(&limited, Ok(Packet::Single(m)) if m == message));
        }
        Ok(Packet::Batch(members)) => {
            assert!(!members.is_empty(), "an empty batch is an error");
            for member in members {
                match member {
                    Ok(message) => round_trip(message),
                    Err(error) => drop(Message::from(error.to_response()).to_json()),
                }
            }
            match &limited {
                Ok(Packet::Batch(same)) => {
                    assert!(members.len() <= LIMIT);
                    assert_eq!(same.len(), members.len());
                }
                Ok(Packet::Single(_)) => panic!("a batch decoded as a single message"),
                Err(_) => assert!(members.len() > LIMIT, "a batch within the limit refused"),
            }
        }
        Err(error) => {
            assert!(single.is_err());
            // the error response is a message of its own
            round_trip(&Message::from(error.to_response()));
        }
    }
});
