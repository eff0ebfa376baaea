/*
 * rrm benchmark driver for DriftingDroids (github.com/smack42/DriftingDroids,
 * GPL-3.0-or-later, by Michael Henke).
 *
 * This file is ours; DriftingDroids' sources are NOT part of the rrm
 * repository. bench/peers/build fetches them at a pinned commit and compiles
 * this class together with the package driftingdroids.model.
 *
 * For each puzzle it builds a freestyle Board (Board.createBoardFreestyle,
 * Board.setWall, Board.setRobots, Board.addGoal) and runs the solver the GUI
 * uses by default: Solver.createInstance(board) = SolverIDDFS, with the
 * default options (SOLUTION_MODE.MINIMUM, rebound moves allowed). The first
 * solution of the returned (sorted) list is printed. With the environment
 * variable DD_REBOUNDS=no the solver runs with setOptionAllowRebounds(false),
 * DriftingDroids' no-rebounds rule.
 *
 * Usage: java -cp CLASSES RrmDriftingDroids PUZZLES.jsonl
 * Output: name<TAB>moves<TAB>"0N 2E ..." per puzzle (robot indices as in the
 * input), or name<TAB>unsupported<TAB>reason, or name<TAB>none<TAB>reason.
 * DriftingDroids logs to System.out; this driver moves that to stderr.
 */

import driftingdroids.model.Board;
import driftingdroids.model.Move;
import driftingdroids.model.Solution;
import driftingdroids.model.Solver;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public final class RrmDriftingDroids {

    private static final int MAX_ROBOTS = 5; // Board.ROBOT_COLOR_NAMES_SHORT has 5 colours
    private static final String DIRS = "NESW"; // Board.NORTH=0, EAST=1, SOUTH=2, WEST=3
    private static final int[] BIT = {1, 2, 4, 8}; // neutral layout: N=1 E=2 S=4 W=8

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: RrmDriftingDroids PUZZLES.jsonl");
            System.exit(2);
        }
        final PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, "UTF-8");
        System.setOut(System.err); // DriftingDroids' Logger prints diagnostics on System.out
        int status = 0;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(new FileInputStream(args[0]), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.trim().isEmpty()) {
                    continue;
                }
                Map<String, Object> obj;
                try {
                    obj = new Json(line).object();
                } catch (RuntimeException e) {
                    System.err.println("driftingdroids driver: JSON error: " + e.getMessage());
                    out.println("?\tunsupported\tcould not parse the input line");
                    status = 1;
                    continue;
                }
                out.println(solve(obj));
            }
        }
        out.flush();
        System.exit(status);
    }

    private static String solve(Map<String, Object> p) throws InterruptedException {
        final String name = p.get("name") instanceof String ? (String) p.get("name") : "?";
        final int width = intOf(p.get("width"), -1);
        final int height = intOf(p.get("height"), -1);
        if (width < Board.WIDTH_MIN || width > Board.WIDTH_MAX || height < Board.HEIGHT_MIN
                || height > Board.HEIGHT_MAX || width * height > Board.SIZE_MAX) {
            return name + "\tunsupported\tboard size " + width + "x" + height + " outside DriftingDroids' limits";
        }
        final int size = width * height;
        final List<Object> walls = listOf(p.get("walls"));
        final List<Object> robotsIn = listOf(p.get("robots"));
        if (walls == null || walls.size() != size) {
            return name + "\tunsupported\texpected " + size + " wall cells";
        }
        if (robotsIn == null || robotsIn.isEmpty() || robotsIn.size() > MAX_ROBOTS) {
            return name + "\tunsupported\tDriftingDroids takes 1.." + MAX_ROBOTS + " robots (puzzle has "
                    + (robotsIn == null ? 0 : robotsIn.size()) + ")";
        }
        final int n = robotsIn.size();
        final int[] robots = new int[n];
        for (int i = 0; i < n; i++) {
            robots[i] = intOf(robotsIn.get(i), -1);
        }
        final int targetCell = intOf(p.get("target_cell"), -1);
        final Object tr = p.get("target_robot");
        final int targetRobot = (tr == null) ? -1 : intOf(tr, -1); // null or -1: wildcard goal
        if (targetCell < 0 || targetCell >= size || targetRobot >= n || targetRobot < -1) {
            return name + "\tunsupported\ttarget out of range";
        }

        final Board board = Board.createBoardFreestyle(null, width, height, n);
        for (int pos = 0; pos < size; pos++) {
            final int w = intOf(walls.get(pos), 0);
            for (int d = 0; d < 4; d++) {
                if ((w & BIT[d]) != 0) {
                    board.setWall(pos, DIRS.substring(d, d + 1), true); // sets both sides of the wall
                }
            }
        }
        if (!board.setRobots(robots)) {
            return name + "\tunsupported\trobot on a blocked cell, off the board, or two robots on one cell";
        }
        board.removeGoals();
        board.addGoal(targetCell, targetRobot, targetRobot < 0 ? Board.GOAL_VORTEX : Board.GOAL_CIRCLE);

        if (targetRobot >= 0 && robots[targetRobot] == targetCell) {
            return name + "\t0\t";
        }
        if (board.isSolution01()) {
            // DriftingDroids applies the board-game rule here: a goal reachable in 0/1 moves
            // must be reached by a path that ricochets at least once, so its answer is not
            // the plain shortest path.
            return name + "\tunsupported\tgoal reachable in 0 or 1 move: DriftingDroids then applies its ricochet rule";
        }

        final Solver solver = Solver.createInstance(board); // SolverIDDFS
        solver.setOptionAllowRebounds(!"no".equals(System.getenv("DD_REBOUNDS")));
        final List<Solution> solutions = solver.execute();
        System.err.println("driftingdroids driver: " + name + ": " + solver.toString()
                + " solutions=" + solutions.size());
        if (solutions.isEmpty() || solutions.get(0).size() == 0) {
            return name + "\tnone\tno solution found";
        }
        final Solution best = solutions.get(0);
        final StringBuilder sb = new StringBuilder();
        sb.append(name).append('\t').append(best.size()).append('\t');
        best.resetMoves();
        Move m;
        boolean first = true;
        while ((m = best.getNextMove()) != null) {
            if (!first) {
                sb.append(' ');
            }
            first = false;
            sb.append(m.robotNumber).append(DIRS.charAt(m.direction));
        }
        return sb.toString();
    }

    private static int intOf(Object o, int dflt) {
        if (o instanceof Number) {
            return ((Number) o).intValue();
        }
        return dflt;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> listOf(Object o) {
        return (o instanceof List) ? (List<Object>) o : null;
    }

    /** Minimal JSON reader: objects, arrays, strings, numbers, true/false/null. */
    private static final class Json {
        private final String s;
        private int i;

        Json(String s) {
            this.s = s;
        }

        Map<String, Object> object() {
            ws();
            final Object v = value();
            if (!(v instanceof Map)) {
                throw new IllegalArgumentException("expected an object");
            }
            @SuppressWarnings("unchecked")
            final Map<String, Object> m = (Map<String, Object>) v;
            return m;
        }

        private void ws() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        private char peek() {
            if (i >= s.length()) {
                throw new IllegalArgumentException("unexpected end of line");
            }
            return s.charAt(i);
        }

        private void expect(char c) {
            ws();
            if (peek() != c) {
                throw new IllegalArgumentException("expected '" + c + "' at " + i);
            }
            i++;
        }

        private Object value() {
            ws();
            final char c = peek();
            if (c == '{') {
                i++;
                final Map<String, Object> m = new HashMap<>();
                ws();
                if (peek() == '}') {
                    i++;
                    return m;
                }
                while (true) {
                    ws();
                    final String k = string();
                    expect(':');
                    m.put(k, value());
                    ws();
                    if (peek() == ',') {
                        i++;
                        continue;
                    }
                    expect('}');
                    return m;
                }
            }
            if (c == '[') {
                i++;
                final List<Object> l = new ArrayList<>();
                ws();
                if (peek() == ']') {
                    i++;
                    return l;
                }
                while (true) {
                    l.add(value());
                    ws();
                    if (peek() == ',') {
                        i++;
                        continue;
                    }
                    expect(']');
                    return l;
                }
            }
            if (c == '"') {
                return string();
            }
            if (s.startsWith("true", i)) {
                i += 4;
                return Boolean.TRUE;
            }
            if (s.startsWith("false", i)) {
                i += 5;
                return Boolean.FALSE;
            }
            if (s.startsWith("null", i)) {
                i += 4;
                return null;
            }
            final int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            if (start == i) {
                throw new IllegalArgumentException("unexpected character at " + i);
            }
            final double d = Double.parseDouble(s.substring(start, i));
            if (d == Math.rint(d) && Math.abs(d) < 1e15) {
                return Long.valueOf((long) d);
            }
            return Double.valueOf(d);
        }

        private String string() {
            if (peek() != '"') {
                throw new IllegalArgumentException("expected string at " + i);
            }
            i++;
            final StringBuilder sb = new StringBuilder();
            while (peek() != '"') {
                char c = s.charAt(i++);
                if (c == '\\') {
                    final char e = peek();
                    i++;
                    switch (e) {
                        case 'n': c = '\n'; break;
                        case 't': c = '\t'; break;
                        case 'r': c = '\r'; break;
                        case 'b': c = '\b'; break;
                        case 'f': c = '\f'; break;
                        case 'u':
                            c = (char) Integer.parseInt(s.substring(i, i + 4), 16);
                            i += 4;
                            break;
                        default: c = e; break;
                    }
                }
                sb.append(c);
            }
            i++;
            return sb.toString();
        }
    }
}
