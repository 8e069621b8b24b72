//! `mock-model-server [--port N]`: an OpenAI-compatible server on 127.0.0.1 for offline
//! runs against the `openai` backends. Prints its base URL, serves until killed.

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut port = 0;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => port = args.next().and_then(|p| p.parse().ok()).unwrap_or(0),
            other => {
                eprintln!("usage: mock-model-server [--port N] (unknown argument {other:?})");
                std::process::exit(2);
            }
        }
    }
    let server = mock_model_server::MockServer::start(port)?;
    println!("{}", server.base_url());
    loop {
        std::thread::park();
    }
}
