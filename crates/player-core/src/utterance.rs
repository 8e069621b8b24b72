//! An utterance in the player's queue: its segments as they arrive (text, then audio),
//! where playback is, and what of it was heard.

use std::collections::BTreeMap;

use crate::heard::{Heard, heard_part};

#[derive(Debug, Clone)]
pub(crate) struct SegmentSlot {
    pub(crate) text: String,
    pub(crate) audio: Option<Vec<f32>>,
    pub(crate) failed: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct Utterance {
    pub(crate) speaker: String,
    pub(crate) segments: BTreeMap<u32, SegmentSlot>,
    pub(crate) last_index: Option<u32>,
    pub(crate) playing_index: u32,
    pub(crate) position: usize,
    pub(crate) started_at: Option<u64>,
    pub(crate) heard: Heard,
}

impl Utterance {
    pub(crate) fn finished(&self) -> bool {
        self.last_index
            .is_some_and(|last| self.playing_index > last)
    }

    /// What was heard of the current segment up to `position`, cut at a word boundary
    /// so that the context gets whole words.
    pub(crate) fn partial(&self) -> Option<String> {
        let slot = self.segments.get(&self.playing_index)?;
        heard_part(&slot.text, self.position, slot.audio.as_ref()?.len())
    }

    /// Counts what was heard of the current segment up to `position`.
    pub(crate) fn credit_partial(&mut self) {
        if let Some(partial) = self.partial() {
            self.heard.push(&partial);
        }
    }

    /// Everything heard so far: the segments played and the current one up to
    /// `position`.
    pub(crate) fn heard_so_far(&self) -> String {
        match self.partial().filter(|p| !p.is_empty()) {
            Some(partial) if self.heard.is_empty() => partial,
            Some(partial) => format!("{} {partial}", self.heard.text()),
            None => self.heard.text().to_owned(),
        }
    }
}
