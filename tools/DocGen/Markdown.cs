// Markdown: the few pieces of Markdown that DocGen reads and writes (pipe tables, cell escaping).
// Invariants: a cell's text never contains an unescaped '|' or a newline, so a row stays one table row.
namespace DocGen;

public static class Markdown
{
    /// <summary>The cells of a table row "| a | b \| c |" (escaped pipes stay in the cell, escaped).</summary>
    public static List<string> Cells(string row)
    {
        var cells = new List<string>();
        var t = row.Trim();
        if (t.StartsWith('|')) t = t[1..];
        if (t.EndsWith('|') && !t.EndsWith("\\|")) t = t[..^1];
        var cur = new System.Text.StringBuilder();
        for (int i = 0; i < t.Length; i++)
        {
            if (t[i] == '\\' && i + 1 < t.Length && t[i + 1] == '|') { cur.Append("\\|"); i++; }
            else if (t[i] == '|') { cells.Add(cur.ToString().Trim()); cur.Clear(); }
            else cur.Append(t[i]);
        }
        cells.Add(cur.ToString().Trim());
        return cells;
    }

    public static bool IsSeparator(string line) => line.Trim().StartsWith('|') && line.Trim().Trim('|').Split('|').All(c => c.Trim().Trim(':').Length > 0 && c.Trim().Trim(':').All(ch => ch == '-'));

    public static string Row(IEnumerable<string> cells) => "| " + string.Join(" | ", cells.Select(Escape)) + " |";

    public static string Separator(int n) => "|" + string.Concat(Enumerable.Repeat("---|", n));

    /// <summary>Escapes pipes that are not escaped yet and flattens newlines.</summary>
    public static string Escape(string cell)
    {
        var sb = new System.Text.StringBuilder();
        for (int i = 0; i < cell.Length; i++)
        {
            if (cell[i] == '\\' && i + 1 < cell.Length && cell[i + 1] == '|') { sb.Append("\\|"); i++; }
            else if (cell[i] == '|') sb.Append("\\|");
            else if (cell[i] == '\n' || cell[i] == '\r') sb.Append(' ');
            else sb.Append(cell[i]);
        }
        return sb.ToString();
    }

    public static string Code(string s) => "`" + s + "`";

    /// <summary>Plain text (e.g. an option's help text) as Markdown that shows it as written: no emphasis, links or HTML.</summary>
    public static string Text(string plain)
    {
        var sb = new System.Text.StringBuilder();
        foreach (char c in plain)
        {
            switch (c)
            {
                case '<': sb.Append("&lt;"); break;
                case '>': sb.Append("&gt;"); break;
                case '&': sb.Append("&amp;"); break;
                case '\\' or '*' or '_' or '[' or ']' or '`' or '|': sb.Append('\\').Append(c); break;
                default: sb.Append(c); break;
            }
        }
        return sb.ToString();
    }
}
