//! The trajectory as columns (`TrajectoryColumns`, what the Python package hands out as
//! arrays) holds the values the CSV shows, bit for bit, on every shipped scenario.

use std::path::Path;

use diabolo::output::{ColumnValues, TrajectoryColumns, TrajectoryWriter};
use diabolo::Scenario;

#[test]
fn columns_hold_the_csvs_values_bit_for_bit_on_every_shipped_scenario() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        if text.contains("\"space\": true") {
            continue; // a scenario in space has its own columns
        }
        let sim = Scenario::parse(&text, &[]).unwrap().build(&dir).unwrap();
        let mut writer = TrajectoryWriter::new(Vec::new(), &sim).unwrap();
        let mut columns = TrajectoryColumns::new(&sim);
        sim.run(&mut |row| {
            writer.write_row(row).unwrap();
            columns.push_row(row);
        });
        let csv = String::from_utf8(writer.into_inner()).unwrap();
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let records: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert_eq!(columns.rows(), records.len(), "{}", path.display());
        for (c, (name, values)) in columns.columns().enumerate() {
            assert_eq!(name, header[c]);
            for (r, record) in records.iter().enumerate() {
                let field = record[c];
                let same = match values {
                    ColumnValues::Numbers(v) if field.is_empty() => v[r].is_nan(),
                    ColumnValues::Numbers(v) => {
                        field.parse::<f64>().unwrap().to_bits() == v[r].to_bits()
                    }
                    ColumnValues::Integers(v) => field.parse::<i64>().unwrap() == v[r],
                    ColumnValues::Words { codes, names } => names[codes[r] as usize] == field,
                };
                assert!(same, "{}: {name} row {r}: CSV {field:?}", path.display());
                checked += 1;
            }
        }
    }
    assert!(checked > 100_000, "{checked} fields");
}
