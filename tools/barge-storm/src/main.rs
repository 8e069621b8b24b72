//! `barge-storm drive ws://HOST:PORT/ws COUNT [SEED]`: cuts into a running conversation
//! COUNT times through its console (typed words, taken like a transcript: an interrupt
//! and a reset), at random moments: some a few milliseconds after the last (two in a
//! row within 50 ms), most while an agent is generating, synthesizing or being heard.
//!
//! `barge-storm check SESSION_DIR`: reads the session folder afterwards (the timeline,
//! the player's interrupts, the recorder's events and `conversation.wav`) and prints the
//! report of [`barge_storm::check`], with the moment each interrupt hit; exits 1 when it
//! is not clean.

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
            let session = barge_storm::read_session(dir.as_ref());
            let report = barge_storm::check(&session);
            print_report(&session, &report);
            if report.is_clean() && session.unreadable == 0 {
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

fn print_report(session: &barge_storm::Session, report: &barge_storm::Report) {
    use barge_storm::{CLOSE_MS, CUT_TOLERANCE_MS, Moment, SILENCE_LEVEL, STUCK_MS};
    println!(
        "{} utterances played, {} interrupts reached the player, {} turns; unreadable lines {}",
        report.utterances, report.interrupts, report.turns, session.unreadable
    );
    println!(
        "timeline: late voices {}, overlapping voices {}, turns handed out twice {}; unpaired with events.jsonl: utterances {}, interrupts {}",
        report.late_voices.len(),
        report.overlaps.len(),
        report.repeated_turns.len(),
        report.unpaired_played.len(),
        report.unpaired_interrupts.len(),
    );
    let audio = &report.audio;
    match &session.audio_error {
        Some(e) => println!("audio: conversation.wav unreadable: {e}"),
        None => println!(
            "audio ({:.1} s of conversation.wav, silence up to {SILENCE_LEVEL}/32767): after {} interrupts (+{CUT_TOLERANCE_MS} ms of fade), sound before the next voice {} (loudest sample there {}); sound outside the timeline's utterances {}; utterances heard in the timeline but silent {}",
            audio.duration_ms as f64 / 1000.0,
            audio.cuts_checked,
            audio.sound_after_cut.len(),
            audio.loudest_after_cut,
            audio.sound_outside_spans.len(),
            audio.silent_heard_spans.len(),
        ),
    }
    if let Some(at) = audio.sounding_at_end {
        println!(
            "audio: a newer voice sounds from {:.1} s to the end (the stop cut it; no timeline line)",
            at as f64 / 1000.0
        );
    }
    let count = |m: &std::collections::BTreeMap<Moment, usize>| {
        Moment::ALL
            .iter()
            .map(|k| format!("{} {}", k.name(), m.get(k).copied().unwrap_or(0)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!("moments: {}", count(&report.moments));
    println!(
        "within {CLOSE_MS} ms of the previous: {} ({})",
        report.close.values().sum::<usize>(),
        count(&report.close)
    );
    println!(
        "after each interrupt: no turn before the next {}; a new voice before the next interrupt {} (longest wait {} ms), the next interrupt first {} (at most {} ms later), the end first {}, no voice for {} s (stuck) {}; turns never ended {}",
        report.no_turn_after.len(),
        report.after.answered,
        report.after.longest_wait_ms,
        report.after.pre_empted,
        report.after.longest_pre_empted_ms,
        report.after.ended_first,
        STUCK_MS / 1000,
        report.after.stuck.len(),
        report.lost_turns.len(),
    );
    if !report.turns_missing_from_events.is_empty() {
        println!(
            "events.jsonl lacks {} turns of the controller's decision log (the recorder's record is incomplete): {:?}",
            report.turns_missing_from_events.len(),
            report.turns_missing_from_events
        );
    }
    for (voice, cut) in report.late_voices.iter().take(5) {
        println!("  late: {voice:?} after {cut:?}");
    }
    for (a, b) in report.overlaps.iter().take(5) {
        println!("  overlap: {a:?} and {b:?}");
    }
    for (cut, at, peak) in audio.sound_after_cut.iter().take(5) {
        println!("  sound at {at} ms (peak {peak}) after {cut:?}");
    }
    for (at, peak) in audio.sound_outside_spans.iter().take(5) {
        println!("  sound outside the timeline at {at} ms (peak {peak})");
    }
    for p in audio.silent_heard_spans.iter().take(5) {
        println!("  silent but heard: {p:?}");
    }
    for p in report.unpaired_played.iter().take(5) {
        println!("  unpaired utterance: {p:?}");
    }
    for q in report.unpaired_interrupts.iter().take(5) {
        println!("  unpaired interrupt: q{q}");
    }
    for q in report.no_turn_after.iter().take(5) {
        println!("  no turn after interrupt q{q}");
    }
    for cut in report.after.stuck.iter().take(5) {
        println!("  stuck after {cut:?}");
    }
    for q in report.lost_turns.iter().take(5) {
        println!("  turn q{q} never ended");
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
