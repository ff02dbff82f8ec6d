//! The region scan of `xladoctor/syntax/region.py`, compiled: how long finding the host-offload
//! region of an HLO text takes without CPython's per-line cost.  A measurement, not part of the
//! tool: it prints `instructions seeds region scan_seconds closure_seconds` for one file.
use std::collections::HashMap;
use std::time::Instant;

const SEEDS: [&str; 8] = ["MoveToHost", "MoveToDevice", "annotate_device_placement", "_xla_buffer_placement",
    "AllocateBuffer", "_xla_compute_type", "async_execution_thread", "S("];
const CALL_ATTRS: [&str; 9] = ["to_apply=", "calls=", "body=", "condition=", "branch_computations=",
    "true_computation=", "false_computation=", "called_computations=", "control-predecessors="];

fn is_name_byte(b: u8) -> bool { b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-' }

/// Every name-like word of `s` outside strings.
fn words<'a>(s: &'a str, out: &mut Vec<&'a str>) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' { if b[i] == b'\\' { i += 1; } i += 1; }
            i += 1;
        } else if b[i].is_ascii_alphabetic() || b[i] == b'_' {
            let st = i;
            while i < b.len() && is_name_byte(b[i]) { i += 1; }
            out.push(&s[st..i]);
        } else { i += 1; }
    }
}

struct Scan { entry: usize, comps: Vec<String>, members: Vec<(usize, usize)>, comp_of: Vec<usize>,
    operands: Vec<Vec<usize>>, callees: Vec<Vec<usize>>, seeds: Vec<usize> }

fn scan(text: &str) -> Option<Scan> {
    let (mut comps, mut members, mut names, mut comp_of) = (Vec::new(), Vec::new(), Vec::<&str>::new(), Vec::new());
    let (mut raw_ops, mut raw_attrs, mut seeds) = (Vec::<&str>::new(), Vec::<&str>::new(), Vec::new());
    let mut current: Option<(String, usize)> = None;
    let mut entry = usize::MAX;
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with("//") || t.starts_with("HloModule") { continue; }
        if t.starts_with('}') {
            let (name, first) = current.take()?;
            comps.push(name);
            members.push((first, names.len()));
            continue;
        }
        let body = t.strip_prefix("ROOT ").unwrap_or(t);
        if let (Some(eq), Some(_)) = (body.find(" = "), current.as_ref()) {
            let name = body[..eq].trim_start_matches('%');
            let rest = &body[eq + 3..];
            let rb = rest.as_bytes();
            // the shape: a tuple in parentheses, or one word
            let mut i = 0;
            if rb.first() == Some(&b'(') {
                let mut depth = 0;
                while i < rb.len() { match rb[i] { b'(' => depth += 1, b')' => { depth -= 1; if depth == 0 { i += 1; break; } } _ => {} } i += 1; }
            } else { while i < rb.len() && rb[i] != b' ' { i += 1; } }
            let open = rest[i..].find('(').map(|k| k + i)?;
            let mut j = open + 1;
            let mut depth = 1;
            while j < rb.len() { match rb[j] { b'(' => depth += 1, b')' => { depth -= 1; if depth == 0 { break; } } _ => {} } j += 1; }
            names.push(name);
            comp_of.push(comps.len());
            raw_ops.push(&rest[open + 1..j.min(rest.len())]);
            let attrs = &rest[(j + 1).min(rest.len())..];
            raw_attrs.push(attrs.split(", metadata={").next().unwrap_or(""));
            if SEEDS.iter().any(|s| line.contains(s)) { seeds.push(names.len() - 1); }
        } else if t.ends_with('{') && current.is_none() {
            if t.starts_with("ENTRY ") { entry = comps.len(); }
            let head = t.strip_prefix("ENTRY ").unwrap_or(t).trim_start_matches('%');
            let end = head.find(|c: char| !(c.is_ascii_alphanumeric() || "_.-".contains(c))).unwrap_or(head.len());
            current = Some((head[..end].to_string(), names.len()));
        } else if current.is_some() { return None; }
    }
    let comp_index: HashMap<&str, usize> = comps.iter().enumerate().map(|(k, c)| (c.as_str(), k)).collect();
    let mut operands = vec![Vec::new(); names.len()];
    let mut callees = vec![Vec::new(); names.len()];
    let mut ws = Vec::new();
    for &(first, end) in &members {
        let defined: HashMap<&str, usize> = (first..end).map(|i| (names[i], i)).collect();
        for i in first..end {
            ws.clear();
            words(raw_ops[i], &mut ws);
            if CALL_ATTRS.iter().any(|a| raw_attrs[i].contains(a)) { words(raw_attrs[i], &mut ws); }
            for w in &ws {
                if let Some(&j) = defined.get(w) { if j != i { operands[i].push(j); } }
                else if let Some(&c) = comp_index.get(w) { callees[i].push(c); }
            }
        }
    }
    if entry == usize::MAX { return None; }
    Some(Scan { entry, comps, members, comp_of, operands, callees, seeds })
}

/// The seeds closed under operands, users and calls, as `region()` in region.py.
fn region(s: &Scan, entry: usize) -> usize {
    let n = s.comp_of.len();
    let mut users = vec![Vec::new(); n];
    for (i, ops) in s.operands.iter().enumerate() { for &o in ops { users[o].push(i); } }
    let mut callers = vec![Vec::new(); s.comps.len()];
    for (i, cs) in s.callees.iter().enumerate() { for &c in cs { callers[c].push(i); } }
    let (mut inside, mut whole) = (vec![false; n], vec![false; s.comps.len()]);
    let mut todo = s.seeds.clone();
    let mut count = 0;
    while let Some(i) = todo.pop() {
        if inside[i] { continue; }
        inside[i] = true;
        count += 1;
        todo.extend(&s.operands[i]);
        todo.extend(&users[i]);
        let own = s.comp_of[i];
        for &c in s.callees[i].iter().chain(if own != entry { Some(&own) } else { None }) {
            if !whole[c] { whole[c] = true; todo.extend(s.members[c].0..s.members[c].1); todo.extend(&callers[c]); }
        }
    }
    count
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: region_scan_rs FILE.hlo");
    let text = std::fs::read_to_string(&path).expect("read");
    let mut best = (f64::MAX, f64::MAX, 0, 0, 0);
    for _ in 0..3 {
        let t0 = Instant::now();
        let Some(s) = scan(&text) else { println!("declined"); return; };
        let t1 = Instant::now();
        let r = region(&s, s.entry);
        let t2 = Instant::now();
        let (a, b) = ((t1 - t0).as_secs_f64(), (t2 - t1).as_secs_f64());
        if a < best.0 { best = (a, b, s.comp_of.len(), s.seeds.len(), r); }
    }
    println!("{} {} {} {:.4} {:.4}", best.2, best.3, best.4, best.0, best.1);
}
