// SaveRules: Redis's "save" rule form: pairs "<seconds> <changes>"; a checkpoint is due when at least <changes> writes
// happened and at least <seconds> passed since the last checkpoint, for any pair. "" (no pairs) turns them off.
namespace Garnet.server.Persistence;

public readonly record struct SaveRule(long Seconds, long Changes);

public static class SaveRules
{
    public static readonly SaveRule[] Default = [new(3600, 1), new(300, 100), new(60, 10000)];

    /// <summary>Parses "3600 1 300 100"; null when the text is not pairs of positive integers.</summary>
    public static SaveRule[]? Parse(string text)
    {
        var parts = text.Split([' ', '\t'], StringSplitOptions.RemoveEmptyEntries);
        if (parts.Length == 1 && parts[0] is "\"\"" or "''") return [];
        if (parts.Length % 2 != 0) return null;
        var rules = new SaveRule[parts.Length / 2];
        for (int i = 0; i < rules.Length; i++)
        {
            if (!long.TryParse(parts[2 * i], out long seconds) || !long.TryParse(parts[2 * i + 1], out long changes) || seconds < 1 || changes < 0)
                return null;
            rules[i] = new SaveRule(seconds, changes);
        }
        return rules;
    }

    public static string Format(IEnumerable<SaveRule> rules) => string.Join(' ', rules.Select(r => $"{r.Seconds} {r.Changes}"));

    public static bool Due(IReadOnlyList<SaveRule> rules, long secondsSinceSave, long changes)
    {
        foreach (var r in rules)
            if (changes >= r.Changes && secondsSinceSave > r.Seconds) return true;
        return false;
    }
}
