# Word error rate: (substitutions + deletions + insertions) / reference words, by word-level
# Levenshtein distance. Input: pairs of lines, the reference then the hypothesis, lower case
# and punctuation already removed. Prints "errors words" per pair and the total WER last.
function distance(ref, hyp,    r, h, i, j, d, n, m, cost, best) {
  n = split(ref, r, " "); m = split(hyp, h, " ")
  for (i = 0; i <= n; i++) d[i, 0] = i
  for (j = 0; j <= m; j++) d[0, j] = j
  for (i = 1; i <= n; i++)
    for (j = 1; j <= m; j++) {
      cost = (r[i] == h[j]) ? 0 : 1
      best = d[i-1, j-1] + cost
      if (d[i-1, j] + 1 < best) best = d[i-1, j] + 1
      if (d[i, j-1] + 1 < best) best = d[i, j-1] + 1
      d[i, j] = best
    }
  words = n
  return d[n, m]
}
NR % 2 == 1 { ref = $0; next }
{ e = distance(ref, $0); errors += e; total += words; printf "%d %d\n", e, words }
END { if (total > 0) printf "WER %.1f%% (%d errors / %d words)\n", 100 * errors / total, errors, total }
