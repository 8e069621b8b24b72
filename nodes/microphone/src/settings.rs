//! The microphone's environment, read once at start.

use eyre::bail;

pub struct Settings {
    /// Samples a second (`SAMPLE_RATE`, 16000).
    pub rate: u32,
    /// Milliseconds a block (`BLOCK_MS`, 20).
    pub block_ms: u32,
    /// `MIC_COMMAND`: a command writing raw 16-bit mono PCM, in place of the device.
    pub command: Option<String>,
}

impl Settings {
    pub fn from_env() -> eyre::Result<Self> {
        let rate: u32 = node_kit::env_parse("SAMPLE_RATE", 16_000)?;
        let block_ms: u32 = node_kit::env_parse("BLOCK_MS", 20)?;
        if !(8_000..=96_000).contains(&rate) || !(5..=200).contains(&block_ms) {
            bail!("SAMPLE_RATE must be 8000..96000 and BLOCK_MS 5..200");
        }
        Ok(Self {
            rate,
            block_ms,
            command: node_kit::env_opt("MIC_COMMAND"),
        })
    }

    /// Samples in one block.
    pub fn block_len(&self) -> usize {
        (self.rate * self.block_ms / 1000) as usize
    }
}
