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

{{/* Names of the control plane's objects, as YAML (fromYaml): etcd,
     apiserver (also its Service, which users reach), controllerManager, pki,
     controllerKubeconfig, adminKubeconfig. */}}
{{- define "meridian.controlPlane.names" -}}
{{- $name := include "meridian.component" (dict "root" . "component" "control-plane") -}}
etcd: {{ $name }}-etcd
apiserver: {{ $name }}-apiserver
controllerManager: {{ $name }}-controller-manager
pki: {{ $name }}-pki
controllerKubeconfig: {{ $name }}-controller-kubeconfig
adminKubeconfig: {{ $name }}-admin-kubeconfig
{{- end -}}

{{/* A kubeconfig of the control plane: dict "server" "ca" (PEM) "user" "token". */}}
{{- define "meridian.controlPlane.kubeconfig" -}}
apiVersion: v1
kind: Config
clusters:
- name: meridian
  cluster:
    server: {{ .server }}
    certificate-authority-data: {{ .ca | b64enc }}
users:
- name: {{ .user }}
  user:
    token: {{ .token }}
contexts:
- name: meridian
  context: {cluster: meridian, user: {{ .user }}}
current-context: meridian
{{- end -}}

{{/* The control plane's pods: no ServiceAccount token (they talk to their
     own API server only), the chart's pod security, and a group that may
     read the mounted keys and write etcd's volume. */}}
{{- define "meridian.controlPlane.podSpec" -}}
automountServiceAccountToken: false
enableServiceLinks: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets: {{- toYaml . | nindent 2 }}
{{- end }}
securityContext: {{- toYaml (merge (dict "fsGroup" .Values.podSecurityContext.runAsUser) .Values.podSecurityContext) | nindent 2 }}
{{- end -}}

{{/* kube-controller-manager --controllers of the control plane: every
     default controller but those that run workloads, as the testbed's
     management cluster (testbed.ManagementControllers; a test keeps the
     two equal). */}}
{{- define "meridian.controlPlane.controllers" -}}
*,-deployment-controller,-replicaset-controller,-statefulset-controller,-daemonset-controller,-job-controller,-cronjob-controller,-replicationcontroller-controller,-horizontal-pod-autoscaler-controller,-disruption-controller,-ttl-after-finished-controller
{{- end -}}
