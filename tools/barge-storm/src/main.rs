//! `barge-storm drive ws://HOST:PORT/ws COUNT [SEED]`: cuts into a running conversation
//! COUNT times through its console (typed words, taken like a transcript: an interrupt
//! and a reset), at random moments: some a few milliseconds after the last (two in a
//! row within 50 ms), most while an agent is generating, synthesizing or being heard.
//!
//! `barge-storm check SESSION_DIR`: reads the session folder afterwards and prints the
//! report of [`barge_storm::check`]; exits 1 when it is not clean.

use std::time::{Duration, Instant};

use eyre::{Context, bail, eyre};
use futures_util::SinkExt;
use tokio_tungstenite::tungstenite::Message;

fn main() -> eyre::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("drive") => {
            let url = args
                .get(1)
                .ok_or_else(|| eyre!("drive needs a ws:// URL"))?;
            let count: usize = args
                .get(2)
                .ok_or_else(|| eyre!("drive needs a count"))?
                .parse()
                .context("COUNT")?;
            let seed: u64 = args.get(3).map_or(Ok(7), |s| s.parse()).context("SEED")?;
            drive(url, count, seed)
        }
        Some("check") => {
            let dir = args
                .get(1)
                .ok_or_else(|| eyre!("check needs a session folder"))?;
            let (played, cuts, recorded, bad) = barge_storm::read_session(dir.as_ref());
            let report = barge_storm::check(&played, &cuts, &recorded);
            println!(
                "{} utterances played, {} interrupts reached the player, {} turns; late voices {}, overlapping voices {}, turns handed out twice {}, went on after the last interrupt: {}, unreadable lines {bad}",
                report.utterances,
                report.interrupts,
                report.turns,
                report.late_voices.len(),
                report.overlaps.len(),
                report.repeated_turns.len(),
                report.went_on,
            );
            for (voice, cut) in report.late_voices.iter().take(5) {
                println!("  late: {voice:?} after {cut:?}");
            }
            for (a, b) in report.overlaps.iter().take(5) {
                println!("  overlap: {a:?} and {b:?}");
            }
            if report.is_clean() && bad == 0 {
                Ok(())
            } else {
                std::process::exit(1)
            }
        }
        _ => bail!(
            "usage: barge-storm drive ws://HOST:PORT/ws COUNT [SEED] | barge-storm check SESSION_DIR"
        ),
    }
}

/// xorshift64*: a reproducible storm without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The wait before the next barge-in: a tenth within 50 ms (two in a row), a third within
/// a second (mid-generation, mid-synthesis), the rest up to six seconds (mid-sentence,
/// between sentences, between turns).
fn next_gap(rng: &mut Rng) -> Duration {
    let ms = match rng.below(10) {
        0 => rng.below(50),
        1..=3 => 50 + rng.below(950),
        _ => 1000 + rng.below(5000),
    };
    Duration::from_millis(ms)
}

fn drive(url: &str, count: usize, seed: u64) -> eyre::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let start = Instant::now();
        let (mut socket, _) = loop {
            match tokio_tungstenite::connect_async(url).await {
                Ok(connected) => break connected,
                Err(e) if start.elapsed() > Duration::from_secs(180) => {
                    bail!("cannot reach the console at {url}: {e}")
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(250)).await,
            }
        };
        // Let the conversation start before the first cut.
        tokio::time::sleep(Duration::from_secs(8)).await;
        let mut rng = Rng(seed.max(1));
        let mut within_50ms = 0;
        for n in 0..count {
            let gap = next_gap(&mut rng);
            if gap < Duration::from_millis(50) {
                within_50ms += 1;
            }
            tokio::time::sleep(gap).await;
            let say = serde_json::json!({
                "type": "say",
                "text": format!("Wait, question {n}: why is that so?"),
            });
            socket
                .send(Message::text(say.to_string()))
                .await
                .context("the console closed the page")?;
            // Read nothing back: the page's queue may drop frames, which is its business.
        }
        // The conversation must go on after the storm.
        tokio::time::sleep(Duration::from_secs(15)).await;
        let _ = socket.close(None).await;
        println!(
            "{count} barge-ins in {:.0} s ({within_50ms} within 50 ms of the previous one)",
            start.elapsed().as_secs_f64()
        );
        Ok(())
    })
}
