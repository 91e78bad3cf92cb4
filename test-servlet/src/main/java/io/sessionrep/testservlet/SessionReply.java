package io.sessionrep.testservlet;

import java.util.Map;

/**
 * One answer of the test servlet as a client saw it.
 *
 * @param status    HTTP status
 * @param fields    the JSON body's fields (see {@link SessionTestServlet})
 * @param setCookie the {@code JSESSIONID} value the answer set, or null when it set none
 */
public record SessionReply(int status, Map<String, String> fields, String setCookie) {

    public boolean ok() {
        return status == 200;
    }

    public String node() {
        return fields.get("node");
    }

    /** The session id as the container reports it ({@code HttpSession.getId()}). */
    public String session() {
        return fields.get("session");
    }

    /** The session's version, or null (error answers, never-initialized sessions). */
    public Integer version() {
        String v = fields.get("version");
        return v == null ? null : Integer.valueOf(v);
    }

    public String checksum() {
        return fields.get("checksum");
    }

    /** True when the servlet answered a {@code process} it had already done (see {@link WorkloadRequest}). */
    public boolean replayed() {
        return "true".equals(fields.get("replayed"));
    }

    public String error() {
        return fields.get("error");
    }

    /** The state part of a 200 answer, comparable with {@link Workload#expected}. */
    public WorkloadState state() {
        return new WorkloadState(version(), Integer.parseInt(fields.get("attributes")),
                Long.parseLong(fields.get("bytes")), checksum());
    }
}
