//! Cursors (`presa_core::Cursor`): decoding any text succeeds or fails cleanly; a decoded
//! cursor re-encodes to the same text (one spelling per cursor) and checking it against any
//! list never panics; any cursor encodes to text that decodes to it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use presa_core::Cursor;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(cursor) = Cursor::decode(&text) {
        assert_eq!(cursor.encode(), text, "a second spelling of {cursor:?}");
        let _ = cursor.check(cursor.generation(), usize::MAX);
        let _ = cursor.check(0, 0);
    }
    let mut numbers = [0u8; 16];
    for (slot, byte) in numbers.iter_mut().zip(data) {
        *slot = *byte;
    }
    let (generation, offset) = numbers.split_at(8);
    let cursor = Cursor::new(
        u64::from_le_bytes(generation.try_into().expect("8 bytes")),
        u64::from_le_bytes(offset.try_into().expect("8 bytes")),
    );
    assert_eq!(Cursor::decode(&cursor.encode()), Ok(cursor));
});
