//! The words an answer to a human may open with, said while the rest is still being
//! written (a listener hears the answerer take the floor within a breath).
//!
//! The bridge that answers chooses one (`agent_bridge::opener`); a player that voices
//! slowly prepares their audio ahead, so that an opener sounds as soon as it arrives.

/// Every opener, as the bridge sends it and the segmenter passes it on (its line break
/// apart): the player's cache is keyed by these exact texts.
pub const PHRASES: &[&str] = &[
    "Sure.",
    "Of course.",
    "Let me think.",
    "Let me see.",
    "Okay.",
    "Right.",
    "I see.",
];
