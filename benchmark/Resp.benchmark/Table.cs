// Table: plain-text tables for the console (right-aligned numbers, a header and a rule) and number formatting.
// Invariants: culture-invariant output (thousands separators are commas, decimals are points), so results read
// the same on every machine and scripts can parse them.
using System.Globalization;
using System.Text;

namespace Resp.benchmark;

public sealed class Table(params string[] headers)
{
    private readonly List<string[]> _rows = [];

    public void Add(params string[] cells)
    {
        if (cells.Length != headers.Length) throw new ArgumentException("row width differs from the header");
        _rows.Add(cells);
    }

    public void WriteTo(TextWriter output)
    {
        var widths = new int[headers.Length];
        for (int c = 0; c < headers.Length; c++)
        {
            widths[c] = headers[c].Length;
            foreach (var row in _rows) widths[c] = Math.Max(widths[c], row[c].Length);
        }
        var sb = new StringBuilder();
        void Line(string[] cells)
        {
            sb.Clear();
            for (int c = 0; c < cells.Length; c++)
            {
                if (c > 0) sb.Append("  ");
                if (c == 0) sb.Append(cells[c].PadRight(widths[c])); else sb.Append(cells[c].PadLeft(widths[c]));
            }
            output.WriteLine(sb.ToString().TrimEnd());
        }
        Line(headers);
        output.WriteLine(new string('-', widths.Sum() + 2 * (widths.Length - 1)));
        foreach (var row in _rows) Line(row);
    }

    public static string Int(long v) => v.ToString("N0", CultureInfo.InvariantCulture);
    public static string Fixed(double v, int decimals) => v.ToString("F" + decimals, CultureInfo.InvariantCulture);

    /// <summary>A nanosecond value as microseconds with two decimals.</summary>
    public static string Micros(long nanoseconds) => Fixed(nanoseconds / 1000.0, 2);

    /// <summary>1234567 as "1.23M", 12345 as "12.3K".</summary>
    public static string Rate(double v) => v switch
    {
        >= 1e9 => Fixed(v / 1e9, 2) + "G",
        >= 1e6 => Fixed(v / 1e6, 2) + "M",
        >= 1e3 => Fixed(v / 1e3, 1) + "K",
        _ => Fixed(v, 0),
    };
}
