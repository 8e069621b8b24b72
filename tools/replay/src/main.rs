//! `replay SESSION_FOLDER [--node ID] [--set KEY=VALUE]...`: re-drives the session's
//! decision nodes from their recorded inputs and reports where they decided otherwise.
//! Exit status 1 when a decision differs.

use std::path::PathBuf;

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
    let replays = match replay::replay_session(&args.session, args.node.as_deref(), &overrides) {
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
                None => println!(
                    "{}{run}: {} inputs, {} decisions, 0 differ",
                    node.node, segment.steps, segment.decisions
                ),
                Some(d) => {
                    differs = true;
                    println!(
                        "{}{run}: first difference at input {} ({:.3} s), after {} equal decisions; comparison stops there",
                        node.node,
                        d.step + 1,
                        d.at_ns as f64 / 1e9,
                        segment.decisions
                    );
                    println!("  input:    {}", d.input);
                    println!("  recorded: {}", show(&d.recorded));
                    println!("  replayed: {}", show(&d.replayed));
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
