//! `ckg mcp` with rmcp's own client: over stdio (spawning the binary) with the current
//! protocol (`server/discover`, 2026-07-28) and an older one (`initialize`, 2025-06-18), and
//! over Streamable HTTP at `/mcp` on `ckg serve`: discovery, listing, every tool, paging,
//! fixable errors, a cursor from an older generation, a query after an edit, and start-up
//! without an index.

mod common;

use std::path::Path;
use std::time::Duration;

use common::http::Server;
use common::{Repo, copy_dir};
use rmcp::model::{CallToolRequestParams, CallToolResult, ClientConfig, ProtocolVersion};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Value, json};

type Client = RunningService<RoleClient, ClientConfig>;

fn app() -> Repo {
    let repo = Repo::new();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/express-app"), repo.path());
    repo.index_json(&[]);
    repo
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

async fn stdio(root: &Path, mode: ClientLifecycleMode) -> Client {
    stdio_with(root, mode, ClientConfig::default()).await
}

async fn stdio_with(root: &Path, mode: ClientLifecycleMode, config: ClientConfig) -> Client {
    let root = root.to_path_buf();
    let transport = TokioChildProcess::new(tokio::process::Command::new(env!("CARGO_BIN_EXE_ckg")).configure(|c| {
        c.arg("mcp").arg(&root).stderr(std::process::Stdio::null());
    }))
    .unwrap();
    config.serve_with_lifecycle(transport, mode).await.expect("the MCP client starts")
}

fn discover() -> ClientLifecycleMode {
    ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] }
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args.as_object().cloned().unwrap());
    client.call_tool(params).await.unwrap_or_else(|e| panic!("{tool}: {e}"))
}

fn structured(r: &CallToolResult) -> &Value {
    assert_ne!(r.is_error, Some(true), "{:?}", r.content);
    r.structured_content.as_ref().expect("structured content")
}

fn error_text(r: &CallToolResult) -> String {
    assert_eq!(r.is_error, Some(true), "expected an error result: {:?}", r.structured_content);
    serde_json::to_value(&r.content).unwrap()[0]["text"].as_str().unwrap().to_string()
}

/// Every listed tool and the callable ones, on the bundled app.
async fn exercise(client: &Client, repo: &Repo) {
    let tools: Vec<String> = client.list_all_tools().await.unwrap().into_iter().map(|t| t.name.to_string()).collect();
    assert_eq!(tools, ["search", "definition", "references", "impact", "dependencies", "status"]);
    for t in client.list_all_tools().await.unwrap() {
        assert_eq!(t.annotations.as_ref().and_then(|a| a.read_only_hint), Some(true), "{}", t.name);
        assert!(t.output_schema.is_some() && t.description.as_ref().is_some_and(|d| d.len() > 40), "{}", t.name);
    }

    let found = call(client, "search", json!({"pattern": "*authMiddleware*"})).await;
    let symbols = structured(&found)["symbols"].as_array().unwrap().clone();
    assert!(symbols.iter().any(|s| s["qname"] == "src/middleware/auth.ts#authMiddleware"), "{symbols:?}");

    let def = call(client, "definition", json!({"qname": "src/middleware/auth.ts#authMiddleware"})).await;
    let d = structured(&def);
    assert_eq!(d["definition"]["node"]["line"], 43);
    assert!(
        d["signature"].as_str().unwrap().contains("export function authMiddleware(req: Request, res: Response, next: NextFunction)"),
        "{d}"
    );
    assert!(d["doc"].as_str().unwrap().contains("Bearer"), "{d}");
    assert!(d["end_line"].as_u64().unwrap() > 43);
    let at = call(client, "definition", json!({"file": "src/app.ts", "line": 85, "col": 11})).await;
    assert_eq!(structured(&at)["definition"]["node"]["qname"], "src/middleware/errorHandler.ts#errorHandler");

    let refs = call(client, "references", json!({"target": "src/middleware/auth.ts#authMiddleware"})).await;
    assert!(structured(&refs)["edges"].as_array().unwrap().len() > 10);
    let callers = call(client, "references", json!({"target": "src/utils/http.ts#sendOk", "direction": "callers"})).await;
    assert!(structured(&callers)["edges"].as_array().unwrap().iter().all(|e| e["kind"] == "calls"));

    let impact = call(client, "impact", json!({"target": "express", "depth": 1, "kinds": ["imports"]})).await;
    let files: Vec<&str> = structured(&impact)["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert!(files.contains(&"src/config/server.ts") && files.contains(&"test/helpers/mock.ts"), "{files:?}");

    let deps = call(client, "dependencies", json!({"file": "src/app.ts"})).await;
    assert!(structured(&deps)["deps"]["deps"].as_array().unwrap().iter().any(|d| d["target"] == "express"));
    let path = call(client, "dependencies", json!({"direction": "path", "from": "src/index.ts#main", "to": "express"})).await;
    assert!(!structured(&path)["path"]["edges"].as_array().unwrap().is_empty());
    let status = call(client, "status", json!({})).await;
    assert_eq!(structured(&status)["indexing"]["state"], "ready");
    assert!(structured(&status)["status"]["files"].as_u64().unwrap() > 40);

    // Second-tier tools are callable by name.
    let roles = call(client, "roles", json!({"pack": "express"})).await;
    assert!(structured(&roles)["roles"].as_array().unwrap().len() > 300);
    let check = call(client, "check", json!({"pack": "express-to-fastify", "files": ["src/routes/books.ts"]})).await;
    assert!(!structured(&check)["violations"].as_array().unwrap().is_empty());

    // Paging: a cursor continues the same call.
    let first = call(client, "references", json!({"target": "express", "limit": 5})).await;
    let cursor = structured(&first)["next_page_token"].as_str().expect("more pages").to_string();
    let second = call(client, "references", json!({"target": "express", "limit": 5, "cursor": cursor})).await;
    assert_ne!(structured(&first)["edges"], structured(&second)["edges"]);

    // Fixable input: a message that says what to do next.
    assert!(error_text(&call(client, "definition", json!({"qname": "nope"})).await).contains("Use `search`"));
    assert!(error_text(&call(client, "impact", json!({"target": "router"})).await).contains("ambiguous"));
    assert!(error_text(&call(client, "definition", json!({"file": "src/app.ts", "line": 9999, "col": 1})).await).contains("past the end"));
    assert!(error_text(&call(client, "references", json!({"target": "express", "cursor": "zz"})).await).contains("cursor"));
    assert!(error_text(&call(client, "search", json!({"pattern": "x", "bogus": 1})).await).contains("bad arguments"));
    assert!(error_text(&call(client, "cycles", json!({"include_exported": true})).await).contains("bad arguments"));
    // Nothing outside the repository is read or named: files, targets, packs.
    for (tool, args) in [
        ("definition", json!({"file": "/etc/passwd", "line": 1, "col": 1})),
        ("definition", json!({"file": "../../../../etc/passwd", "line": 1, "col": 1})),
        ("dependencies", json!({"file": "/etc/passwd"})),
        ("references", json!({"target": "/etc/passwd"})),
        ("check", json!({"pack": "express-to-fastify", "files": ["/etc/passwd"]})),
    ] {
        let text = error_text(&call(client, tool, args.clone()).await);
        assert!(text.contains("not a path inside the indexed root") && !text.contains("lines"), "{tool} {args}: {text}");
    }
    assert!(error_text(&call(client, "check", json!({"pack": "/etc/x.toml"})).await).contains("unknown pack"));
    assert!(
        error_text(&call(client, "check", json!({"pack": "express-to-fastify", "files": ["src/nope.ts"]})).await)
            .contains("not a file of the index")
    );
    // A path with `.` and `..` inside the root names the same file.
    let dotted = call(client, "dependencies", json!({"file": "./src/routes/../app.ts"})).await;
    assert_eq!(structured(&dotted)["deps"]["file"], "src/app.ts");

    // After an edit: the new definition is found, and a cursor of the old generation is refused.
    repo.write("src/fresh.ts", "export function freshlyAdded(): number {\n  return 1;\n}\n");
    repo.index_json(&[]);
    let fresh = call(client, "search", json!({"pattern": "freshlyAdded"})).await;
    assert_eq!(structured(&fresh)["symbols"][0]["qname"], "src/fresh.ts#freshlyAdded");
    let stale = call(client, "references", json!({"target": "express", "limit": 5, "cursor": structured(&first)["next_page_token"]})).await;
    assert!(error_text(&stale).contains("ask again without `cursor`"));
}

#[test]
fn stdio_with_the_current_protocol() {
    let repo = app();
    runtime().block_on(async {
        let client = stdio(repo.path(), discover()).await;
        let info = format!("{:?}", client.peer_info().expect("the server's discovery answer"));
        assert!(info.contains("2026-07-28") && info.contains("ckg"), "{info}");
        exercise(&client, &repo).await;
        client.cancel().await.unwrap();
    });
}

#[test]
fn stdio_with_an_older_protocol() {
    let repo = app();
    runtime().block_on(async {
        // A client that still speaks 2025-06-18 (`initialize`): the server negotiates down.
        let mut config = ClientConfig::default();
        config.protocol_version = ProtocolVersion::V_2025_06_18;
        let client = stdio_with(repo.path(), ClientLifecycleMode::Initialize, config).await;
        let info = format!("{:?}", client.peer_info().expect("the server's info"));
        assert!(info.contains("2025-06-18") && info.contains("\"ckg\""), "{info}");
        let tools = client.list_all_tools().await.unwrap();
        assert_eq!(tools.len(), 6);
        let r = call(&client, "search", json!({"pattern": "createApp"})).await;
        assert_eq!(structured(&r)["symbols"][0]["qname"], "src/app.ts#createApp");
        client.cancel().await.unwrap();
        // An older revision than 2025-06-18 is not agreed to: the server answers with the
        // newest revision it supports with `initialize` (the spec's rule), the client decides.
        let mut config = ClientConfig::default();
        config.protocol_version = ProtocolVersion::V_2024_11_05;
        let client = stdio_with(repo.path(), ClientLifecycleMode::Initialize, config).await;
        let info = format!("{:?}", client.peer_info().expect("the server's info"));
        assert!(info.contains("2025-11-25") && !info.contains("2024-11-05"), "{info}");
        client.cancel().await.unwrap();
    });
}

#[test]
fn without_an_index_it_starts_at_once_and_indexes_in_the_background() {
    let repo = Repo::new();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("corpora/express-app"), repo.path());
    runtime().block_on(async {
        let client = stdio(repo.path(), discover()).await;
        // Until the index is there, the tools say so; `status` follows the work.
        let mut ready = false;
        for _ in 0..200 {
            let status = call(&client, "status", json!({})).await;
            if structured(&status)["indexing"]["state"] == "ready" {
                ready = true;
                break;
            }
            let early = call(&client, "search", json!({"pattern": "createApp"})).await;
            if early.is_error == Some(true) {
                assert!(error_text(&early).contains("indexing"));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(ready, "the background index never finished");
        let r = call(&client, "search", json!({"pattern": "createApp"})).await;
        assert_eq!(structured(&r)["symbols"][0]["qname"], "src/app.ts#createApp");
        client.cancel().await.unwrap();
    });
}

#[test]
fn over_http_on_ckg_serve() {
    let repo = app();
    let server = Server::start(repo.path(), &[]);
    let port = server.port;
    runtime().block_on(async {
        for mode in [discover(), ClientLifecycleMode::Initialize] {
            let transport = StreamableHttpClientTransport::from_uri(format!("http://127.0.0.1:{port}/mcp"));
            let client = ClientConfig::default().serve_with_lifecycle(transport, mode).await.expect("an HTTP MCP client starts");
            let tools = client.list_all_tools().await.unwrap();
            assert_eq!(tools[0].name, "search");
            let r = call(&client, "impact", json!({"target": "src/config/env.ts#config", "depth": 1})).await;
            assert_eq!(structured(&r)["files"].as_array().unwrap().len(), 8);
            client.cancel().await.unwrap();
        }
    });
    // The service's guard applies: a foreign Origin is refused.
    let r = common::http::request(
        port,
        "POST",
        "/mcp",
        &[("Origin", "http://evil.example"), ("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")],
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
    );
    assert_eq!(r.status, 403, "{}", r.text());
}

/// A line that is not JSON gets JSON-RPC's parse error (`-32700`, `"id": null`), and the
/// session goes on.
#[test]
fn a_line_that_is_not_json_is_a_parse_error_and_the_session_goes_on() {
    use std::io::{BufRead, BufReader, Write};
    let repo = app();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ckg"))
        .arg("mcp")
        .arg(repo.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut reply = || {
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    };
    writeln!(stdin, "this is {{not json").unwrap();
    let error = reply();
    assert_eq!(error["error"]["code"], -32700, "{error}");
    assert_eq!(error["id"], Value::Null, "{error}");
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    writeln!(stdin, "{init}").unwrap();
    let answer = reply();
    assert_eq!(answer["id"], 1, "{answer}");
    assert!(answer["result"]["serverInfo"]["name"] == "ckg", "{answer}");
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
