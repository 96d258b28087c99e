//! What the fuzz targets share: turning fuzzer bytes into a value of a proptest strategy.

use std::sync::Once;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// Pseudo-random bytes after the fuzzer's own, so that drawing never runs dry.
const PADDING: usize = 4096;

/// The value `strategy` draws when its random choices are the bytes of `data` (proptest's
/// pass-through RNG), so coverage-guided mutation of `data` explores the strategy's choices.
///
/// Past the end of `data` the pass-through RNG would return zeros forever, and rand's
/// rejection sampling of an integer range rejects zero for most ranges, so it would never
/// return: the fuzzer's bytes are followed by a fixed pseudo-random stream instead.
pub fn draw<S: Strategy>(data: &[u8], strategy: S) -> S::Value {
    let mut seed = Vec::with_capacity(data.len() + PADDING);
    seed.extend_from_slice(data);
    let mut state = 0x9E37_79B9_7F4A_7C15_u64 ^ data.len() as u64;
    while seed.len() < data.len() + PADDING {
        // splitmix64
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        seed.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    let rng = TestRng::from_seed(RngAlgorithm::PassThrough, &seed);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    strategy
        .new_tree(&mut runner)
        .expect("these strategies never reject")
        .current()
}

/// Lets panics whose message is `message` unwind as usual; every other panic still aborts.
///
/// libfuzzer-sys installs a panic hook that aborts on every panic, even one that is caught, so
/// that a panic swallowed by the code under test is still a crash. The dispatch targets' app has
/// a route that panics on purpose (the app must turn it into a 500): that panic is not a
/// finding. Call at the start of each run; it installs its hook once.
pub fn tolerate_panic(message: &'static str) {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let abort = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let text = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
            if text != Some(message) {
                abort(info);
            }
        }));
    });
}
