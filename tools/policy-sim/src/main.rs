//! `policy-sim --pattern "<pattern>" --turns N [--words W] [--human-at T1,T2,...] [--json]`
//!
//! Prints one line per turn (`<turn> <speaker> <words>`, or JSON objects with `--json`)
//! and then the stats. An invalid pattern exits with status 2 and the caret error.

use std::{
    io::{BufWriter, Write},
    process::ExitCode,
};

use clap::Parser;
use turn_policy::{
    Policy, PolicyEngine, PolicyStats,
    sim::{SimEnd, simulate},
};

#[derive(Parser, Debug)]
#[command(
    version,
    about = "Preview a DORA_POLICY_PATTERN: who speaks, in which order, how much"
)]
struct Args {
    /// The policy pattern, e.g. "[(human, 0.001), (tutor, *), (student1, 1), (student2, 1)]"
    #[arg(long)]
    pattern: String,
    /// Number of agent turns to simulate
    #[arg(long)]
    turns: u64,
    /// Words per utterance (default: a deterministic 5..40 sequence)
    #[arg(long)]
    words: Option<u64>,
    /// The human speaks (8 words) just before these turns, e.g. 10,25
    #[arg(long, value_delimiter = ',')]
    human_at: Vec<u64>,
    /// Extra human participant names (never handed the turn), comma-separated
    #[arg(long, value_delimiter = ',')]
    humans: Vec<String>,
    /// One JSON object per line, then the stats JSON
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let policy = match Policy::parse(&args.pattern) {
        Ok(policy) => policy,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let mut engine = PolicyEngine::new(policy, &args.humans);
    let names: Vec<String> = engine.names().to_vec();
    let json_names: Vec<String> = names
        .iter()
        .map(|n| serde_json::to_string(n).expect("strings serialize"))
        .collect();
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut write_error = None;
    let simulated = simulate(&mut engine, args.turns, args.words, &args.human_at, |t| {
        if write_error.is_some() {
            return;
        }
        let result = if args.json {
            writeln!(
                out,
                "{{\"turn\":{},\"speaker\":{},\"words\":{}}}",
                t.turn, json_names[t.speaker], t.words
            )
        } else {
            writeln!(out, "{} {} {}", t.turn, names[t.speaker], t.words)
        };
        if let Err(e) = result {
            write_error = Some(e);
        }
    });
    if let Some(e) = write_error {
        // A closed pipe (e.g. `| head`) is not an error worth a message.
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("policy-sim: {e}");
            return ExitCode::FAILURE;
        }
        return ExitCode::SUCCESS;
    }
    if let SimEnd::FloorOpen { after_turn } = simulated.end {
        eprintln!(
            "policy-sim: after turn {after_turn} nobody but a human can speak; stopping (a live conference waits for the human)"
        );
    }
    let stats = engine.stats(simulated.question_id);
    let result = if args.json {
        writeln!(out, "{}", stats.to_json())
    } else {
        write_stats_block(&mut out, &stats)
    };
    match result.and_then(|_| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("policy-sim: {e}");
            ExitCode::FAILURE
        }
    }
}

fn write_stats_block(out: &mut impl Write, stats: &PolicyStats) -> std::io::Result<()> {
    let total: u64 = stats.word_counts.0.iter().map(|(_, c)| c).sum();
    let width = stats
        .participants
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(4)
        .max(11);
    writeln!(out, "--- stats ---")?;
    writeln!(out, "mode: {}", stats.mode)?;
    writeln!(out, "cycle: {}", stats.cycle)?;
    writeln!(
        out,
        "{:<width$}  {:>8}  {:>10}  {:>6}",
        "participant", "weight", "words", "share"
    )?;
    for (entry, (name, words)) in stats.weights.iter().zip(&stats.word_counts.0) {
        let share = if total == 0 {
            0.0
        } else {
            *words as f64 * 100.0 / total as f64
        };
        writeln!(
            out,
            "{:<width$}  {:>8}  {:>10}  {:>5.1}%",
            name,
            entry.weight.to_string(),
            words,
            share
        )?;
    }
    Ok(())
}
