use std::time::Instant;
fn med(mut v: Vec<f64>) -> String {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    format!("median {:.1} ms min {:.1}", v[v.len() / 2], v[0])
}
fn main() {
    let db = std::env::args().nth(1).unwrap();
    let (mut all, mut step, mut cols, mut imp) = (vec![], vec![], vec![], vec![]);
    let mut keep = Vec::new();
    for _ in 0..7 {
        let conn = ckg_core::store::open_reader(std::path::Path::new(&db)).unwrap();
        let t = Instant::now();
        let input = ckg_core::store::load_names(&conn).unwrap();
        all.push(t.elapsed().as_secs_f64() * 1000.0);
        keep.push(input);
        let conn = ckg_core::store::open_reader(std::path::Path::new(&db)).unwrap();
        let t = Instant::now();
        let mut s = conn
            .prepare("SELECT id, qname, kind, file_id, parent_id, exported, bases, ty, decorators, params, param_types, line FROM symbols")
            .unwrap();
        let mut rows = s.query([]).unwrap();
        let mut n = 0;
        while let Some(_r) = rows.next().unwrap() {
            n += 1;
        }
        step.push(t.elapsed().as_secs_f64() * 1000.0);
        let t = Instant::now();
        let mut s = conn
            .prepare("SELECT id, qname, kind, file_id, parent_id, exported, bases, ty, decorators, params, param_types, line FROM symbols")
            .unwrap();
        let mut rows = s.query([]).unwrap();
        let mut tot = 0usize;
        while let Some(r) = rows.next().unwrap() {
            for i in 0..12 {
                if let Ok(rusqlite::types::ValueRef::Text(t)) = r.get_ref(i) {
                    tot += t.len();
                }
            }
        }
        cols.push(t.elapsed().as_secs_f64() * 1000.0);
        let t = Instant::now();
        let mut s = conn
            .prepare("SELECT file_id, kind, specifier, imported, local, scope_id, type_only, alternative, line, col FROM imports")
            .unwrap();
        let mut rows = s.query([]).unwrap();
        while let Some(r) = rows.next().unwrap() {
            for i in 0..10 {
                if let Ok(rusqlite::types::ValueRef::Text(t)) = r.get_ref(i) {
                    tot += t.len();
                }
            }
        }
        imp.push(t.elapsed().as_secs_f64() * 1000.0);
        std::hint::black_box((n, tot));
    }
    println!(
        "load_names {}\nsymbols step only {}\nsymbols step+get_ref {}\nimports step+get_ref {}",
        med(all),
        med(step),
        med(cols),
        med(imp)
    );
}
