use super::*;

const FARM: &str = r#"# two machines
machine = [
  { name = "m0", cpus = 8 },
  { name = "m1", cpus = 4, speed = 2.0 },
]
license = [
  { name = "matlab", copies = 2 },
  { name = "abaqus", copies = 1, machines = ["m1"] },
  { name = "gaussian", copies = 3, except = ["m1"] },
]
"#;

fn farm() -> Farm {
    parse_farm("farm.toml", FARM).unwrap()
}

fn farm_error(text: &str) -> String {
    parse_farm("farm.toml", text).unwrap_err().to_string()
}

#[test]
fn reads_machines_and_license_pools() {
    let f = farm();
    assert_eq!(f.machines.len(), 2);
    assert_eq!(
        f.machines[1],
        FarmMachine {
            name: "m1".into(),
            cpus: 4,
            speed: 2000
        }
    );
    assert_eq!(f.machines[0].speed, 1000, "speed defaults to 1.0");
    assert_eq!(f.licenses[0].machines, [0, 1], "default: every machine");
    assert_eq!(f.licenses[1].machines, [1]);
    assert_eq!(f.licenses[2].machines, [0]);
    assert_eq!(f.licenses[2].copies, 3);
    assert_eq!(f.total_cpus(), 12);
}

#[test]
fn longhand_tables_and_default_names_are_accepted() {
    let text = "[[machine]]\ncpus = 2\n\n[[machine]]\ncpus = 3\nspeed = 1\n\n[[license]]\nname = \"x\"\ncopies = 0\nmachines = [\"m1\"]\n";
    let f = parse_farm("f.toml", text).unwrap();
    assert_eq!(f.machines[0].name, "m0");
    assert_eq!(f.machines[1].speed, 1000, "an integer speed is a speed");
    assert_eq!(f.licenses[0].machines, [1]);
    assert_eq!(f.licenses[0].copies, 0);
}

#[test]
fn written_farms_read_back_identically() {
    let f = farm();
    let text = farm_toml(&f, "a comment\nover two lines");
    assert!(text.starts_with("# a comment\n# over two lines\n"));
    assert_eq!(parse_farm("w.toml", &text).unwrap(), f);
    assert!(text.contains("except = [\"m1\"]") || text.contains("machines = [\"m0\"]"));
    assert_eq!(speed_text(1333), "1.333");
    assert_eq!(speed_text(750), "0.75");
    assert_eq!(speed_text(2000), "2.0");
}

#[test]
fn farm_errors_name_line_and_field() {
    assert_eq!(
        farm_error("machine = [\n  { name = \"a\", cpus = 0 },\n]\n"),
        "farm.toml:2: field cpus: machine 'a': expected a whole number from 1 to 4294967295, found 0"
    );
    assert_eq!(
        farm_error("machine = [\n  { cpus = 1, speed = -2.0 },\n]\n"),
        "farm.toml:2: field speed: machine 'm0': expected a speed from 0.001 to 1000000 (1.0 = the reference machine), found -2"
    );
    // A name with a line break is shown escaped: the message stays on one
    // line.
    assert_eq!(
        farm_error("machine = [{ name = \"q\\nx\", cpus = 1 }]\n"),
        "farm.toml:1: field name: machine name 'q\\nx' must be non-empty without spaces"
    );
    assert_eq!(
        farm_error("machine = [{ cpus = 1 }]\nlicense = [{ name = \"l\\t\", copies = 1 }]\n"),
        "farm.toml:2: field name: license name 'l\\t' must be non-empty without spaces"
    );
    assert_eq!(
        farm_error("machine = [{ cpus = 1 }]\nlicense = [{ name = \"l\", copies = 1, except = [\"a\\nb\"] }]\n"),
        "farm.toml:2: field except: license 'l': no machine is named 'a\\nb'"
    );
    assert_eq!(
        farm_error("machine = [{ name = \"a\", cpus = 1 }, { name = \"a\", cpus = 2 }]\n"),
        "farm.toml:1: field name: machine name 'a' is used twice"
    );
    assert_eq!(
        farm_error("machine = [{ cpus = 1 }]\nlicense = [\n { name = \"l\", copies = 1,\n   machines = [\"m7\"] },\n]\n"),
        "farm.toml:4: field machines: license 'l': no machine is named 'm7'"
    );
    assert_eq!(
        farm_error("machine = [{ cpus = 1 }]\nlicense = [{ name = \"l\", copies = -1 }]\n"),
        "farm.toml:2: field copies: license 'l': expected a whole number from 0 to 4294967295, found -1"
    );
    let unknown = farm_error("machine = [{ cpus = 1, colour = \"red\" }]\n");
    assert!(
        unknown.starts_with("farm.toml:1: unknown field `colour`"),
        "{unknown}"
    );
    let missing = farm_error("[[machine]]\nname = \"a\"\n");
    assert!(
        missing.starts_with("farm.toml:1: missing field `cpus`"),
        "{missing}"
    );
    let syntax = farm_error("machine = [\n{ cpus = }\n]");
    assert!(syntax.starts_with("farm.toml:2: "), "{syntax}");
    assert_eq!(
        farm_error("# nothing\n"),
        "farm.toml: a farm needs at least one [[machine]]"
    );
    let many: String = (0..129).map(|_| "[[machine]]\ncpus = 1\n").collect();
    assert_eq!(
        parse_farm("f", &many).unwrap_err().message,
        "more than 128 machines"
    );
}

const JOBS: &str = "# a comment\nid,submit,cpus,estimate,runtime,deadline,licenses\n1,0,4,600,600,,matlab\n\n2,3,1,1200,900,1500,\n3,7,2,500,,800,abaqus  matlab\n";

fn jobs_error(text: &str) -> String {
    parse_jobs("jobs.csv", text.as_bytes(), &farm())
        .unwrap_err()
        .to_string()
}

#[test]
fn reads_a_job_list() {
    let jobs = parse_jobs("jobs.csv", JOBS.as_bytes(), &farm()).unwrap();
    assert_eq!(jobs.len(), 3);
    assert_eq!(
        jobs[2],
        FarmJob {
            id: 3,
            submit: 7,
            cpus: 2,
            estimate: 500,
            runtime: 500,
            deadline: Some(800),
            licenses: vec![0, 1],
        },
        "empty runtime = the estimate; licenses sorted"
    );
    assert_eq!(jobs[0].deadline, None);
    assert_eq!(jobs[0].licenses, [0]);
    assert_eq!(jobs[1].runtime, 900);
    let job = jobs[2].job();
    assert_eq!(job.licenses.0, 0b11);
    assert_eq!(job.deadline(), Some(800));
}

#[test]
fn columns_may_be_reordered_and_optional_ones_left_out() {
    let jobs = parse_jobs("j.csv", b"estimate,id,cpus,submit\n100,9,1,5\n", &farm()).unwrap();
    assert_eq!(
        jobs,
        [FarmJob {
            id: 9,
            submit: 5,
            cpus: 1,
            estimate: 100,
            runtime: 100,
            deadline: None,
            licenses: vec![],
        }]
    );
}

#[test]
fn written_job_lists_read_back_identically() {
    let f = farm();
    let jobs = parse_jobs("jobs.csv", JOBS.as_bytes(), &f).unwrap();
    let text = jobs_csv(&f, &jobs, "generated");
    assert!(text.starts_with("# generated\nid,submit,"));
    assert_eq!(parse_jobs("w.csv", text.as_bytes(), &f).unwrap(), jobs);
}

#[test]
fn license_names_that_need_quoting_read_back() {
    // Names may hold commas and quotes (only white space is refused): the
    // written job list quotes them as CSV does.
    let f = parse_farm(
        "f.toml",
        "machine = [{ cpus = 1 }]\n\
         license = [{ name = \"a,b\", copies = 1 }, { name = 'q\"x', copies = 1 }]\n",
    )
    .unwrap();
    let jobs = parse_jobs(
        "j.csv",
        b"id,submit,cpus,estimate,licenses\n1,0,1,1,\"a,b\"\n2,0,1,1,\"q\"\"x a,b\"\n",
        &f,
    )
    .unwrap();
    assert_eq!(jobs[1].licenses, [0, 1]);
    let text = jobs_csv(&f, &jobs, "c");
    assert!(
        text.ends_with("1,0,1,1,1,,\"a,b\"\n2,0,1,1,1,,\"a,b q\"\"x\"\n"),
        "{text}"
    );
    assert_eq!(parse_jobs("w.csv", text.as_bytes(), &f).unwrap(), jobs);
}

#[test]
fn job_list_errors_name_line_and_field() {
    let head = "id,submit,cpus,estimate,runtime,deadline,licenses\n";
    assert_eq!(
        jobs_error(&format!("{head}1,0,0,10,10,,\n")),
        "jobs.csv:2: field cpus: expected a whole number from 1 to 4294967295, found '0'"
    );
    assert_eq!(
        jobs_error(&format!("# c\n{head}1,0,1,10,10,,\n2,x,1,10,10,,\n")),
        "jobs.csv:4: field submit: expected a whole number from 0 to 4294967295, found 'x'"
    );
    assert_eq!(
        jobs_error(&format!("{head}1,0,1,10,10,,\n1,0,1,10,10,,\n")),
        "jobs.csv:3: field id: job id 1 is used twice (first on line 2)"
    );
    assert_eq!(
        jobs_error(&format!("{head}1,0,1,10,10,,nastran\n")),
        "jobs.csv:2: field licenses: no license pool is named 'nastran' in the farm"
    );
    assert_eq!(
        jobs_error(&format!("{head}1,50,1,10,10,40,\n")),
        "jobs.csv:2: field deadline: deadline 40 is before the submit time 50"
    );
    assert_eq!(
        jobs_error(&format!("{head}1,0,1,10\n")),
        "jobs.csv:2: 4 fields, but the header has 7"
    );
    assert_eq!(
        jobs_error("id,submit,cpus,walltime\n"),
        "jobs.csv:1: field walltime: unknown column (expected some of id,submit,cpus,estimate,runtime,deadline,licenses)"
    );
    // An empty column name (here a trailing comma) is named by its place,
    // not as an empty field.
    assert_eq!(
        jobs_error("id,submit,cpus,estimate,\n"),
        "jobs.csv:1: column 5 of the header has no name (expected some of id,submit,cpus,estimate,runtime,deadline,licenses)"
    );
    assert_eq!(
        jobs_error("id,submit,cpus\n"),
        "jobs.csv:1: field estimate: required column missing from the header"
    );
    assert_eq!(
        jobs_error(&format!("{head}1,0,1,0,1,,\n")),
        "jobs.csv:2: field estimate: expected a whole number from 1 to 4294967295, found '0'"
    );
    let bad_utf8 =
        parse_jobs("j.csv", b"id,submit,cpus,estimate\n1,0,1,\xff\n", &farm()).unwrap_err();
    assert_eq!(bad_utf8.line, Some(2));
}

/// Whatever the files hold is shown escaped in a refusal, field and
/// message, so that every refusal is one line: before, a quoted header
/// name with a line break was the field as written, over two lines.
#[test]
fn text_from_the_files_is_shown_escaped() {
    let head = "id,submit,cpus,estimate\n";
    for (jobs, expected) in [
        (
            "\"sub\nmit\",id,cpus,estimate\n".to_owned(),
            "jobs.csv:1: field sub\\nmit: unknown column (expected some of \
             id,submit,cpus,estimate,runtime,deadline,licenses)",
        ),
        (
            format!("{head}\"1\r\n2\",0,1,10\n"),
            "jobs.csv:2: field id: expected a whole number from 0 to 4294967295, found '1\\r\\n2'",
        ),
        (
            "id,submit,cpus,estimate,licenses\n1,0,1,10,ma\u{7}tlab\n".to_owned(),
            "jobs.csv:2: field licenses: no license pool is named 'ma\\u{7}tlab' in the farm",
        ),
        (
            "id,submit,cpus,estimate,licenses\n1,0,1,10,matlab matlab\n".to_owned(),
            "jobs.csv:2: field licenses: license 'matlab' is listed twice",
        ),
    ] {
        assert_eq!(jobs_error(&jobs), expected);
    }
    // Machine and license names without spaces may still hold control
    // characters; a TOML key with a carriage return reaches the TOML
    // reader's message.
    for (farm, expected) in [
        (
            "machine = [{ name = \"a\\u0007\", cpus = 0 }]\n",
            "farm.toml:1: field cpus: machine 'a\\u{7}': expected a whole number from 1 to \
             4294967295, found 0",
        ),
        (
            "machine = [{ name = \"a\\u0000\", cpus = 1 }, { name = \"a\\u0000\", cpus = 1 }]\n",
            "farm.toml:1: field name: machine name 'a\\0' is used twice",
        ),
        (
            "machine = [{ name = \"b\\u0001\", cpus = 1, speed = 0.0 }]\n",
            "farm.toml:1: field speed: machine 'b\\u{1}': expected a speed from 0.001 to 1000000 \
             (1.0 = the reference machine), found 0",
        ),
        (
            "machine = [{ cpus = 1 }]\nlicense = [{ name = \"l\\u0007\", copies = 1 }, \
             { name = \"l\\u0007\", copies = 1 }]\n",
            "farm.toml:2: field name: license name 'l\\u{7}' is used twice",
        ),
        (
            "machine = [{ cpus = 1 }]\nlicense = [{ name = \"l\\u0007\", copies = -1 }]\n",
            "farm.toml:2: field copies: license 'l\\u{7}': expected a whole number from 0 to \
             4294967295, found -1",
        ),
        (
            "machine = [{ cpus = 1 }]\nlicense = [{ name = \"l\\u0007\", copies = 1, machines = \
             [\"x\"] }]\n",
            "farm.toml:2: field machines: license 'l\\u{7}': no machine is named 'x'",
        ),
    ] {
        assert_eq!(farm_error(farm), expected);
    }
    let key = farm_error("machine = [{ cpus = 1, \"col\\rour\" = 1 }]\n");
    assert!(
        key.starts_with("farm.toml:1: unknown field `col\\rour`"),
        "{key}"
    );
    assert!(!key.contains(['\n', '\r']), "{key:?}");
}
