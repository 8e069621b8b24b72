//! `replay SESSION_FOLDER [--node ID] [--set KEY=VALUE]... [--print]`: re-drives the
//! session's decision nodes from their recorded inputs and reports where they decided
//! otherwise (`--print`: every decision replayed, one line each). Exit status 1 when a
//! decision differs, 2 when the logs cannot be replayed.

use std::{io::Write as _, path::PathBuf};

use clap::Parser;

#[derive(Parser)]
#[command(about = "Replay a session's decisions from its decision logs")]
struct Args {
    /// The session folder (holds decisions/<node-id>.jsonl).
    session: PathBuf,
    /// Only this node's log.
    #[arg(long)]
    node: Option<String>,
    /// Change a setting before replaying, by its environment name, e.g.
    /// --set 'DORA_POLICY_PATTERN=[(tutor, *), (student1, 2)]'.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
    /// Print every decision replayed, one line each: node, time (s), decision.
    #[arg(long)]
    print: bool,
}

/// Prints a line; a closed stdout (`replay ... | head`) is not an error: the replay goes
/// on to its exit status.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

fn main() {
    let args = Args::parse();
    let mut overrides = Vec::new();
    for setting in &args.overrides {
        match setting.split_once('=') {
            Some((key, value)) => overrides.push((key.trim().to_owned(), value.to_owned())),
            None => {
                eprintln!("--set {setting:?}: expected KEY=VALUE");
                std::process::exit(2);
            }
        }
    }
    let mut print = |call: replay::Replayed<'_>| {
        if args.print {
            for decision in call.decisions {
                say!("{} {:.3} {decision}", call.node, call.at_ns as f64 / 1e9);
            }
        }
    };
    let replays = match replay::replay_session_traced(
        &args.session,
        args.node.as_deref(),
        &overrides,
        &mut print,
    ) {
        Ok(replays) => replays,
        Err(e) => {
            eprintln!("replay: {e}");
            std::process::exit(2);
        }
    };
    let mut differs = false;
    for node in &replays {
        for (n, segment) in node.segments.iter().enumerate() {
            let run = if node.segments.len() > 1 {
                format!(" (start {})", n + 1)
            } else {
                String::new()
            };
            match &segment.first_difference {
                None => say!(
                    "{}{run}: {} inputs, {} decisions, 0 differ",
                    node.node,
                    segment.steps,
                    segment.decisions
                ),
                Some(d) => {
                    differs = true;
                    say!(
                        "{}{run}: first difference at input {} ({:.3} s), after {} equal decisions; comparison stops there",
                        node.node,
                        d.step + 1,
                        d.at_ns as f64 / 1e9,
                        segment.decisions
                    );
                    say!("  input:    {}", d.input);
                    let k = d.first_decision();
                    say!(
                        "  its decision {}: recorded {} / replayed {}",
                        k + 1,
                        d.recorded.get(k).map_or("(nothing)", String::as_str),
                        d.replayed.get(k).map_or("(nothing)", String::as_str)
                    );
                    say!("  recorded: {}", show(&d.recorded));
                    say!("  replayed: {}", show(&d.replayed));
                }
            }
        }
    }
    if differs {
        std::process::exit(1);
    }
}

fn show(decisions: &[String]) -> String {
    if decisions.is_empty() {
        "(nothing)".to_owned()
    } else {
        decisions.join("\n            ")
    }
}
