{{/* Name of the release's objects: the release name, or meridian-<release>. */}}
{{- define "meridian.fullname" -}}
{{- if contains "meridian" .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "meridian-%s" .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Name of one component's objects: meridian.component (dict "root" . "component" "controller"). */}}
{{- define "meridian.component" -}}
{{- printf "%s-%s" (include "meridian.fullname" .root) .component -}}
{{- end -}}

{{- define "meridian.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
{{ include "meridian.selectorLabels" . }}
{{- end -}}

{{- define "meridian.selectorLabels" -}}
app.kubernetes.io/name: meridian
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "meridian.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* Whether the webhook's certificate comes from cert-manager. */}}
{{- define "meridian.certManager" -}}
{{- $cm := .Values.webhook.certManager.enabled -}}
{{- if eq (toString $cm) "auto" -}}
{{- if .Capabilities.APIVersions.Has "cert-manager.io/v1" -}}true{{- end -}}
{{- else if eq (toString $cm) "true" -}}true
{{- else if ne (toString $cm) "false" -}}
{{- fail (printf "webhook.certManager.enabled: %q is not valid; use true, false or auto" (toString $cm)) -}}
{{- end -}}
{{- end -}}

{{/* The pod-level fields every component shares. */}}
{{- define "meridian.podSpec" -}}
serviceAccountName: {{ include "meridian.component" . }}
{{- with .root.Values.imagePullSecrets }}
imagePullSecrets: {{- toYaml . | nindent 2 }}
{{- end }}
securityContext: {{- toYaml .root.Values.podSecurityContext | nindent 2 }}
{{- end -}}

{{/* A container's probes on the health-probe address (:8081). */}}
{{- define "meridian.probes" -}}
livenessProbe:
  httpGet: {path: /healthz, port: health}
  periodSeconds: 20
readinessProbe:
  httpGet: {path: /readyz, port: health}
  periodSeconds: 10
{{- end -}}
