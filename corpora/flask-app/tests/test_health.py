def test_healthz(client):
    resp = client.get("/healthz")
    assert resp.status_code == 200
    assert resp.get_json() == {"status": "ok"}
    assert len(resp.headers["X-Request-Id"]) == 32


def test_request_id_is_echoed(client):
    resp = client.get("/healthz", headers={"X-Request-Id": "req-abcdef-123"})
    assert resp.headers["X-Request-Id"] == "req-abcdef-123"
    assert resp.headers["Server-Timing"].startswith("app;dur=")


def test_readyz(client):
    assert client.get("/readyz").get_json() == {"status": "ready", "database": "up"}


def test_version(client, app):
    assert client.get("/version").get_json()["version"] == app.config["APP_VERSION"]


def test_index_redirects_browsers_and_describes_itself_to_api_clients(client):
    assert client.get("/").status_code == 302
    body = client.get("/", headers={"Accept": "application/json"}).get_json()
    assert body == {"name": "Bookshop", "api": "/api/"}


def test_maintenance_mode(client, app):
    app.config["MAINTENANCE_MODE"] = True
    assert client.get("/books/").status_code == 503
    assert client.get("/healthz").status_code == 200
