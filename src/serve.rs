//! `ckg serve`: the HTTP query service. Binds first (so a taken port fails at once), builds
//! the index in the background if there is none (`/v1/ready` says when it is loaded), keeps
//! it fresh with the watcher under `--watch`, and stops gracefully on SIGINT/SIGTERM:
//! in-flight requests finish within a bound, event streams end, and the watcher finishes or
//! rolls back its batch, so the index is always a committed generation.
//!
//! The router and its guards come from `ckg_query::http`; this module owns only the process:
//! arguments, the listener, the connection loop (hyper, with a header-read timeout and a
//! connection cap), the indexer thread and signals.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;

use ckg_core::index::{IndexConfig, Progress};
use ckg_core::watch::WatchEvent;
use ckg_query::http::{GenerationEvent, IndexState, Service, ServiceConfig};

use crate::cli::{IndexArgs, index_config};

#[derive(Args, Debug)]
pub struct ServeArgs {
    #[command(flatten)]
    index: IndexArgs,
    /// Address to listen on. Loopback by default; another address needs --token-file.
    #[arg(long, default_value = "127.0.0.1:7420")]
    addr: String,
    /// Keep the index fresh while serving (file watcher; one generation per batch).
    #[arg(long)]
    watch: bool,
    /// Quiet time (milliseconds) that ends a batch of changes under --watch.
    #[arg(long, default_value_t = 30)]
    debounce_ms: u64,
    /// A file holding the bearer token that every request but /v1/health must send
    /// (`Authorization: Bearer <token>`).
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Listen on a non-loopback address without a token (anyone who can reach it can query).
    #[arg(long)]
    insecure_no_token: bool,
    /// Serve POST /v1/sql (read-only statements, time-limited).
    #[arg(long)]
    allow_sql: bool,
    /// Queries running at once; more wait 50 ms, then get 503 with Retry-After.
    #[arg(long, default_value_t = 32)]
    max_concurrency: usize,
    /// Per-request time limit in milliseconds (then 504; the SQL statement is interrupted).
    #[arg(long, default_value_t = 10_000)]
    timeout_ms: u64,
    /// An Origin allowed besides the service's own (repeatable), e.g. http://localhost:3000.
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allow_origins: Vec<String>,
    /// Open connections at most; more are closed at once.
    #[arg(long, default_value_t = 512)]
    max_connections: usize,
}

/// How long in-flight requests get to finish at shutdown.
const GRACE: Duration = Duration::from_secs(5);
/// A connection that sends no complete request head for this long is closed.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// hyper's read buffer: request heads above it get a bare 431 from hyper; smaller ones that
/// are still too large get a problem body from the guards.
const MAX_BUF: usize = 128 * 1024;

fn resolve_addr(addr: &str) -> Result<SocketAddr> {
    addr.to_socket_addrs()
        .with_context(|| format!("--addr {addr:?} is not an address (use HOST:PORT, e.g. 127.0.0.1:7420)"))?
        .next()
        .with_context(|| format!("--addr {addr:?} resolves to no address"))
}

fn read_token(path: &PathBuf) -> Result<String> {
    let token = std::fs::read_to_string(path).with_context(|| format!("reading the token file {}", path.display()))?;
    let token = token.trim().to_string();
    if token.is_empty() {
        bail!("the token file {} is empty", path.display());
    }
    if token.len() < 16 {
        eprintln!("ckg serve: warning: the token in {} is shorter than 16 characters", path.display());
    }
    Ok(token)
}

pub fn run(args: ServeArgs) -> Result<ExitCode> {
    // A long-running process: its memory matters more than its allocator's speed.
    crate::alloc::prefer_low_memory();
    // A panic in a handler is caught and answered with a 500; log it as one line.
    std::panic::set_hook(Box::new(|info| {
        let message =
            info.payload().downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| info.payload().downcast_ref::<String>().cloned());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("ckg serve: panic{at}: {}", message.unwrap_or_default().replace('\n', " "));
    }));
    let addr = resolve_addr(&args.addr)?;
    let token = args.token_file.as_ref().map(read_token).transpose()?;
    let loopback = addr.ip().is_loopback();
    if !loopback && token.is_none() {
        if !args.insecure_no_token {
            bail!("refusing to listen on {addr} (not loopback) without a token: pass --token-file FILE (or --insecure-no-token)");
        }
        eprintln!("ckg serve: warning: listening on {addr} without a token; anyone who can reach it can query the index");
    }
    if args.max_concurrency == 0 || args.timeout_ms == 0 {
        bail!("--max-concurrency and --timeout-ms must be at least 1");
    }
    let root = args.index.root.canonicalize().with_context(|| format!("root {}", args.index.root.display()))?;
    let mut config = index_config(&args.index);
    config.root = root.clone();
    let db = config.db_path();

    let listener = std::net::TcpListener::bind(addr).with_context(|| format!("cannot listen on {addr}"))?;
    listener.set_nonblocking(true)?;
    let local = listener.local_addr()?;
    let port = local.port();
    let allowed_hosts = if loopback {
        let mut hosts = vec![format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")];
        if port == 80 {
            hosts.extend(["127.0.0.1", "localhost", "[::1]"].map(String::from));
        }
        hosts
    } else {
        Vec::new()
    };
    let service = Arc::new(Service::new(ServiceConfig {
        root: root.clone(),
        db: db.clone(),
        allow_sql: args.allow_sql,
        max_concurrency: args.max_concurrency,
        timeout: Duration::from_millis(args.timeout_ms),
        token,
        allowed_hosts,
        allowed_origins: args.allow_origins.clone(),
    }));
    println!("ckg serve: listening on http://{local} (root {}, index {})", root.display(), db.display());
    use std::io::Write;
    let _ = std::io::stdout().flush();

    let stop = Arc::new(AtomicBool::new(false));
    let indexer = {
        let (service, stop) = (Arc::clone(&service), Arc::clone(&stop));
        let watch = args.watch.then(|| Duration::from_millis(args.debounce_ms));
        let quiet = args.index.quiet;
        std::thread::Builder::new().name("ckg-indexer".into()).spawn(move || run_indexer(&service, config, watch, &stop, quiet))?
    };

    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores)
        .max_blocking_threads(args.max_concurrency + 8)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    // The agent layer's endpoints (roles, checks, plans) are served with the queries.
    service.add_endpoints(ckg_agent::http::ENDPOINTS);
    // The MCP server (Streamable HTTP) at /mcp, behind the same guard (token, Host, Origin).
    let mcp = crate::mcp::http_service(service.config.root.clone(), service.config.db.clone());
    let router = ckg_query::http::router(Arc::clone(&service)).nest_service("/mcp", mcp);
    let app = ckg_query::http::guard::protect(router, Arc::clone(&service));
    runtime.block_on(serve(listener, app, &service, args.max_connections))?;

    // Stop the watcher; a batch in progress commits or rolls back as one transaction.
    stop.store(true, Ordering::Relaxed);
    let waited = Instant::now();
    while !indexer.is_finished() && waited.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    if indexer.is_finished() {
        let _ = indexer.join();
    } else {
        eprintln!("ckg serve: the indexer did not stop within 30 s; exiting (the index keeps its last committed generation)");
    }
    runtime.shutdown_timeout(Duration::from_secs(1));
    eprintln!("ckg serve: stopped");
    Ok(ExitCode::SUCCESS)
}

async fn serve(listener: std::net::TcpListener, app: axum::Router, service: &Service, max_connections: usize) -> Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let connections = Arc::new(tokio::sync::Semaphore::new(max_connections.max(1)));
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut sigterm = signal(SignalKind::terminate())?;
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        // Out of file descriptors and the like: wait, never spin.
                        eprintln!("ckg serve: accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let Ok(permit) = Arc::clone(&connections).try_acquire_owned() else {
                    drop(stream);
                    continue;
                };
                let _ = stream.set_nodelay(true);
                let conn = hyper::server::conn::http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(HEADER_READ_TIMEOUT)
                    .max_buf_size(MAX_BUF)
                    .serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
                let conn = graceful.watch(conn);
                tokio::spawn(async move {
                    let _ = conn.await;
                    drop(permit);
                });
            }
            _ = sigint.recv() => break,
            _ = sigterm.recv() => break,
        }
    }
    eprintln!("ckg serve: shutting down (in-flight requests get {} s)", GRACE.as_secs());
    drop(listener);
    service.close();
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(GRACE) => eprintln!("ckg serve: some connections did not finish in time; closing them"),
    }
    Ok(())
}

/// Coarse progress lines on stderr for the first index (the bar needs a terminal).
fn log_progress(p: Progress) {
    match p {
        Progress::Discovered { files, to_parse } => eprintln!("ckg serve: indexing: {files} files, {to_parse} to parse"),
        Progress::Parsed { done, total } if total >= 100 && done % (total / 4).max(1) == 0 && done < total => {
            eprintln!("ckg serve: indexing: parsed {done}/{total}")
        }
        Progress::Resolving => eprintln!("ckg serve: indexing: resolving"),
        _ => {}
    }
}

fn run_indexer(service: &Service, config: IndexConfig, watch: Option<Duration>, stop: &AtomicBool, quiet: bool) {
    let db = config.db_path();
    let loaded = ckg_query::Index::open(&db).is_ok();
    if loaded {
        service.set_state(IndexState::Ready);
        service.update_graph(None, None);
    }
    let Some(debounce) = watch else {
        if !loaded {
            eprintln!("ckg serve: no usable index at {}; indexing {} first", db.display(), config.root.display());
            let t = Instant::now();
            match ckg_core::index::index(&config, &|p| {
                if !quiet {
                    log_progress(p)
                }
            }) {
                Ok(s) => {
                    let files: u64 = s.files_by_lang.values().sum();
                    eprintln!("ckg serve: indexed {files} files in {:.1} s (generation {})", t.elapsed().as_secs_f64(), s.generation);
                    service.publish(GenerationEvent::from_summary(&s, t.elapsed(), true));
                    service.set_state(IndexState::Ready);
                    service.update_graph(None, None);
                }
                Err(e) => {
                    eprintln!("ckg serve: error: indexing failed: {e}");
                    service.set_state(IndexState::Failed(e.to_string()));
                }
            }
        }
        return;
    };
    service.set_watching(true);
    let mut watch_config = ckg_core::watch::WatchConfig::new(config);
    watch_config.debounce = debounce;
    while !stop.load(Ordering::Relaxed) {
        let result = ckg_core::watch::watch(&watch_config, stop, &mut |event| {
            let u = match event {
                WatchEvent::Updated(u) => u,
                WatchEvent::Failed { error, retry_in } => {
                    // The last committed generation is still served; /v1/status shows the error.
                    eprintln!(
                        "ckg serve: error: update failed: {error}; serving the last committed generation; retrying in {} s or at the next change",
                        retry_in.as_secs()
                    );
                    service.set_watch_error(Some(error.to_string()));
                    return;
                }
                WatchEvent::DatabaseReplaced { db } => {
                    eprintln!("ckg serve: the index database {} was removed or replaced; indexing again", db.display());
                    return;
                }
            };
            service.set_state(IndexState::Ready);
            service.set_watch_error(None);
            // One event per committed generation: a run that changed nothing commits none.
            if !u.summary.changed {
                return;
            }
            let event = GenerationEvent::from_summary(&u.summary, u.latency, u.rescan);
            if !quiet {
                eprintln!(
                    "ckg serve: generation {}: {} parsed, {} removed, {} re-resolved in {:.1} ms",
                    event.generation, event.files_parsed, event.files_removed, event.files_re_resolved, event.latency_ms
                );
            }
            service.publish(event);
            service.update_graph(u.summary.edge_files.as_deref(), Some(u.summary.generation));
        });
        match result {
            Ok(()) => break,
            Err(e) => {
                // The last committed generation is still served; try again shortly.
                eprintln!("ckg serve: error: watching failed: {e}; retrying in 1 s");
                if ckg_query::Index::open(&db).is_err() {
                    service.set_state(IndexState::Failed(e.to_string()));
                }
                for _ in 0..10 {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        }
    }
}
